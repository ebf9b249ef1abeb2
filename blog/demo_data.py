"""Demo content for `flask --app blog demo load`: topics, authors and posts of our own."""

from __future__ import annotations

TOPICS: list[tuple[str, str]] = [
    ("Databases", "databases"),
    ("Infrastructure", "infrastructure"),
    ("Frontend", "frontend"),
    ("Reliability", "reliability"),
    ("Developer tools", "developer-tools"),
    ("Machine learning", "machine-learning"),
]

AUTHORS: list[str] = [
    "Priya Raman",
    "Tomasz Wieczorek",
    "Amara Okafor",
    "Lucas Ferreira",
    "Hana Sato",
    "Daniel Brennan",
    "Sofia Lindqvist",
]

POSTS: list[dict] = [
    {
        "title": "Soft deletes caused more bugs than they prevented",
        "slug": "soft-deletes-caused-more-bugs-than-they-prevented",
        "topics": ["databases"],
        "author": "Priya Raman",
        "summary": (
            "For five years every table had a deleted_at column. We counted the bugs it caused "
            "and the restores it enabled, then replaced it with an archive table and real foreign "
            "keys. The migration took a quarter and was worth it."
        ),
        "body": """\
When the product was young, someone added a `deleted_at` column to every table so that
nothing would ever be lost. It seemed cautious. Five years later, we went through our
incident history and counted what it had actually done for us.

## The count

In five years, soft deletes let support restore accidentally deleted data 14 times. In
the same period, we traced 31 bugs to a query that forgot to filter out deleted rows.
Some were cosmetic, like a deleted project showing up in a count. Some were not: a
deleted user's API key kept authenticating for two weeks, because one code path checked
the key table but not the user.

## The deeper problems

Unique constraints stopped meaning what we wanted. A person could not sign up with an
email address that belonged to a deleted account unless every unique index was rewritten
as a partial index. Foreign keys lost their value too, since a live row could point at a
deleted parent without violating anything.

## What replaced it

Deleting a row now really deletes it. Before the delete, a trigger copies the row as
JSON into an `archived_rows` table, along with the table name, the primary key, the time
and the actor. Restoring is a support tool that reads from the archive and reinserts,
after checking that the parents still exist.

- Queries no longer need a filter that everyone eventually forgets.
- Unique and foreign key constraints mean what they say.
- Archived rows expire after 90 days, which also simplified our retention policy.

## The migration

We converted one family of tables at a time, starting with the least referenced. Each
step moved the soft-deleted rows into the archive, dropped the column and removed the
filters from the code. The hardest part was finding every place that relied on a deleted
row still being readable, and our test suite found most of them for us.""",
        "days_ago": 1,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "How we cut p99 latency of our queue consumer in half",
        "slug": "how-we-cut-p99-latency-of-our-queue-consumer-in-half",
        "topics": ["reliability", "infrastructure"],
        "author": "Amara Okafor",
        "summary": (
            "Our webhook consumer had a p99 delivery latency of 2.4 seconds even though most "
            "deliveries took milliseconds. Tracing showed head-of-line blocking behind slow "
            "receivers, and per-destination concurrency limits brought p99 down to 1.1 seconds."
        ),
        "body": """\
Our webhook consumer takes events from a queue and delivers them to customer endpoints.
The median delivery took 80 milliseconds, which was fine. The 99th percentile was 2.4
seconds, and customers building real-time integrations noticed.

## Where the time went

We added tracing spans for each stage of a delivery: dequeue, serialization, the HTTP
request and the acknowledgement. The HTTP request was fast for almost every message, but
many of the slow deliveries spent most of their time before the request even started.
They were waiting.

Each consumer process pulled a batch of 50 messages and worked through them with a fixed
pool of 10 concurrent requests. When a few receivers in a batch were slow, they occupied
the pool while fast deliveries queued behind them. That is head-of-line blocking, and it
meant a single slow customer endpoint could delay deliveries for dozens of other
customers.

## Per-destination limits

We replaced the fixed pool with a limit per destination host plus a larger global cap:

```python
import asyncio
from collections import defaultdict

GLOBAL = asyncio.Semaphore(64)
PER_HOST = defaultdict(lambda: asyncio.Semaphore(4))


async def deliver(msg):
    async with PER_HOST[msg.host], GLOBAL:
        await post_with_timeout(msg, timeout=5.0)
```

The order matters. Taking the global slot first would let messages for a slow host hold
global capacity while they wait for their host's turn, which is the same problem in a
new place. A slow receiver can now occupy at most four slots, and everyone else keeps
flowing. We also stopped pulling fixed batches, and fetch new messages whenever capacity
frees up.

## Timeouts matter too

Our HTTP timeout had been 30 seconds. We reduced it to five and moved retries to a delay
queue, since a receiver that cannot answer in five seconds rarely answers in thirty, and
a retry a minute later has a better chance.

## Results

p99 delivery latency dropped from 2.4 seconds to 1.1, and p99.9 from 14 seconds to
under 3. Throughput per process went up as well, because slots no longer sat idle
behind a blocked batch.""",
        "days_ago": 14,
        "updated_days_ago": None,
        "featured": True,
        "editors_pick": False,
    },
    {
        "title": "Debugging a memory leak in a long-lived single-page app",
        "slug": "debugging-a-memory-leak-in-a-long-lived-single-page-app",
        "topics": ["frontend", "reliability"],
        "author": "Lucas Ferreira",
        "summary": (
            "People who kept our app open all day reported it slowing to a crawl by the "
            "afternoon. Heap snapshots led us to event listeners that outlived their components "
            "and a cache with no eviction, and both fixes were short."
        ),
        "body": """\
Some of our users keep the app open in a tab for days. A few of them started reporting
that by mid-afternoon, scrolling stuttered and typing lagged. Reloading fixed it, which
is the classic sign of a memory leak.

## Reproducing it

We wrote a script that drove a headless browser between the five most used pages in a
loop for an hour, taking a heap snapshot every ten minutes. The heap grew by about 40 MB
per hundred navigations and never shrank, even after forced garbage collection.

## Reading the snapshots

Comparing two snapshots in the browser's memory tools showed thousands of detached DOM
trees: elements removed from the page but still referenced from JavaScript. The retainer
path for almost all of them led to a resize listener on `window`, registered by our
chart component and never removed.

```typescript
useEffect(() => {
  const onResize = () => chart.resize();
  window.addEventListener("resize", onResize);
  return () => window.removeEventListener("resize", onResize);
}, [chart]);
```

The original code added the listener without the cleanup function, so every chart ever
rendered stayed alive through the listener's closure, along with its DOM.

## The second leak

With that fixed, the heap still grew, only more slowly. This time the retainers led to a
module-level `Map` that memoized formatted values. It had no eviction, and its keys
included timestamps, so it grew forever. We replaced it with a small LRU cache capped at
a thousand entries.

## Preventing the next one

The navigation loop now runs nightly against our staging environment and fails if the
heap after garbage collection grows by more than 5 MB over the run. It has caught two
more leaks since, both in code that had been merged the same day.""",
        "days_ago": 31,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Code review guidelines we actually follow",
        "slug": "code-review-guidelines-we-actually-follow",
        "topics": ["developer-tools"],
        "author": "Daniel Brennan",
        "summary": (
            "Our code review guidelines used to be a long wiki page that nobody read. The current "
            "version fits on one screen, sets expectations for both authors and reviewers, and "
            "has made reviews faster without making them shallower."
        ),
        "body": """\
We rewrote our code review guidelines last year, after noticing that the median pull
request waited almost a day for its first review, and that many comments were about
formatting a tool could have fixed. The short version is below, and [the full
guidelines](https://example.com/engineering/code-review) add examples.

## For authors

- Keep changes small. Under 400 changed lines is the goal; larger changes get split, or
  come with a note on how to read them.
- Write a description that says why, not only what. Link the ticket, and mention
  anything you are unsure about.
- Review your own diff first. You will find the leftover debug line before anyone else
  does.

## For reviewers

- Respond within four working hours. That can be a full review, or a note saying when
  you will get to it.
- Label each comment: "blocking:" for things that must change, "suggestion:" for things
  the author may ignore, and "question:" for things you want to understand.
- Approve with comments when only suggestions remain. Do not hold a change hostage to a
  naming preference.

## What tools do instead

Formatting, import order and most style questions are settled by the formatter and
linter in CI. Reviewers are asked not to comment on anything a tool would catch, and if
they find themselves making the same comment repeatedly, to propose a lint rule instead.

## What reviews are for

The guidelines end with a short statement of purpose: reviews exist to catch defects, to
spread knowledge of the codebase and to keep the design coherent. An approval means "I
understand this and believe it is safe to ship", not "I have verified every line".

## Results

Time to first review dropped from 21 hours to 3. The number of comments per review went
down while the share labeled blocking went up, which we read as reviewers spending their
attention where it counts.""",
        "days_ago": 47,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Load shedding at the edge with a token bucket per tenant",
        "slug": "load-shedding-at-the-edge-with-a-token-bucket-per-tenant",
        "topics": ["reliability", "infrastructure"],
        "author": "Tomasz Wieczorek",
        "summary": (
            "When one customer's script sent us forty times its usual traffic, every customer "
            "felt it. A token bucket per tenant at the edge, with priority for interactive "
            "requests, now sheds excess load before it reaches the services that matter."
        ),
        "body": """\
One Monday, a customer's misconfigured integration started calling our API in a tight
loop. Their traffic went from a few requests per second to several hundred, and our API
servers, which have no idea who is important, slowed down for everyone.

## Shedding early

Work rejected at the edge costs almost nothing. Work rejected after it has reached the
database has already done its damage. So we moved our limits into the edge proxy layer,
where each request is identified by tenant before it is routed anywhere.

## A bucket per tenant

Each tenant gets a token bucket that refills at a steady rate and holds a limited number
of tokens for bursts. A request either takes a token or is rejected with status 429 and
a `Retry-After` header.

```go
type bucket struct {
    mu     sync.Mutex
    tokens float64
    last   time.Time
    rate   float64 // tokens added per second
    burst  float64 // maximum tokens held
}

func (b *bucket) allow(now time.Time) bool {
    b.mu.Lock()
    defer b.mu.Unlock()
    b.tokens = math.Min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
    b.last = now
    if b.tokens < 1 {
        return false
    }
    b.tokens--
    return true
}
```

Buckets live in memory on each edge node, with each tenant's limit divided by the number
of nodes. That is approximate, but it needs no shared state on the hot path, and
precision did not matter much here.

## Interactive traffic first

Not every request is equal. Requests from our web app, where a person is waiting, are
marked interactive. When total load on the API crosses a threshold, the edge rejects
background API traffic first, and only sheds interactive requests if that is not enough.

## How it went

The next runaway integration hit its bucket within a second and received a steady stream
of 429 responses, while other customers saw no change at all. We now also email a
tenant's admins when they spend more than ten minutes over their limit, which has turned
a few would-be incidents into short, friendly support conversations.""",
        "days_ago": 56,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Choosing primary keys: bigint, UUIDv4 or UUIDv7",
        "slug": "choosing-primary-keys-bigint-uuidv4-or-uuidv7",
        "topics": ["databases"],
        "author": "Priya Raman",
        "summary": (
            "We compared three primary key types on insert speed, index size and how much they "
            "reveal to the outside world. Time-ordered UUIDs won for new tables, but the reasons "
            "are more about operations than about raw performance."
        ),
        "body": """\
Every new table starts with the same question, and for years our answer depended on who
wrote the migration. Last quarter we finally wrote down a default, after measuring the
options on our own hardware.

## The candidates

A `bigint` identity is compact and fast, but it is sequential and guessable, and it
cannot be generated outside the database. A random UUIDv4 can be generated anywhere and
reveals nothing, but its randomness scatters inserts across the whole index. UUIDv7 puts
a millisecond timestamp in the high bits, so new values land near the end of the index
like a sequence, while the low bits stay random.

## What we measured

We inserted 50 million rows into a table with only a primary key index, on a machine
with less memory than the final index size.

| Key type | Insert time | Index size | WAL written |
|---|---|---|---|
| bigint identity | 11 min | 1.1 GB | 9 GB |
| UUIDv4 | 38 min | 2.4 GB | 31 GB |
| UUIDv7 | 13 min | 1.9 GB | 11 GB |

The UUIDv4 numbers are the interesting ones. Once the index no longer fits in memory,
random inserts turn into random reads, and page splits all over the tree inflate both
the index and the write-ahead log.

## What we chose

New tables get UUIDv7 keys generated in the application. We can create an object and its
children before talking to the database, merge data from different environments without
collisions, and put IDs in URLs without revealing how many customers we have. The cost
over bigint is modest.

## One caveat

A UUIDv7 does reveal when a row was created. For most of our data that is harmless,
since the creation time is shown in the UI anyway. For the few tables where it is not,
we still use v4 and accept the slower inserts.""",
        "days_ago": 64,
        "updated_days_ago": 9,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Shadow deployments for model rollouts",
        "slug": "shadow-deployments-for-model-rollouts",
        "topics": ["machine-learning", "reliability"],
        "author": "Amara Okafor",
        "summary": (
            "A new version of our routing model looked better offline and made an embarrassing "
            "mistake in its first hour in production. Every candidate now runs in shadow mode "
            "against live traffic for a week before it makes a single real decision."
        ),
        "body": """\
Offline evaluation said the new ticket routing model was three points more accurate than
the old one. In its first hour in production, it routed every ticket written in
Portuguese to the billing team.

## What went wrong

The training data contained few non-English tickets. Worse, an upstream change to our
text cleaning had started stripping accented characters in production, but not in the
training pipeline. Offline evaluation used the training pipeline, so it could not see
the difference.

## Shadow mode

Candidate models now run in shadow before making any real decisions. The serving code
sends each request to both the current model and the candidate. The current model's
answer is used; the candidate's is logged next to it, with the request ID.

That gives us, for every live request, two predictions made from exactly the same
production inputs. We look at:

- the disagreement rate, overall and by segment, such as language, product area and
  customer plan
- the candidate's confidence distribution compared with the current model's
- latency and memory, since a more accurate model that doubles response time is not an
  upgrade

Where the models disagree, we sample cases for people to judge, which tells us directly
which model was right on the cases that differ.

## Promotion

After a week in shadow, a candidate can be promoted if its disagreements are judged
favorably and no segment shows a disagreement rate far above the average. Promotion
itself is gradual: 10 percent of traffic, then half, then all of it, with automatic
rollback if support agents start correcting more routings.

## The cost

Shadow mode doubles inference work during the trial and delays releases by a week. For a
model that decides where customer problems go, we consider that cheap. The Portuguese
problem would have shown up within the first hour of shadow traffic, as a segment with
ninety percent disagreement.""",
        "days_ago": 80,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Cutting our container image from 1.2 GB to 140 MB",
        "slug": "cutting-our-container-image-from-1-2-gb-to-140-mb",
        "topics": ["infrastructure", "developer-tools"],
        "author": "Tomasz Wieczorek",
        "summary": (
            "Our API image had grown to 1.2 GB, which slowed down deploys and autoscaling alike. "
            "A multi-stage build, a slimmer base and a hard look at what we were copying brought "
            "it to 140 MB without changing a line of application code."
        ),
        "body": """\
When a new node joins the cluster during a traffic spike, it has to pull our API image
before it can serve anything. At 1.2 GB, that took around 40 seconds, which is a long
time to wait in the middle of a spike.

## Where the size came from

Inspecting the image layer by layer showed three big contributors. The base image was a
full distribution with compilers, because some Python packages needed to build native
extensions. The build context included our `.git` directory and a folder of test
fixtures. And a cleanup step that deleted caches ran in its own layer, which does
nothing to shrink the layers before it.

## A multi-stage build

The fix is to compile in one stage and bring only the results into a small runtime
stage:

```dockerfile
FROM python:3.12-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends build-essential
COPY requirements.lock .
RUN pip wheel --no-cache-dir --wheel-dir /wheels -r requirements.lock

FROM python:3.12-slim
ENV PIP_NO_CACHE_DIR=1
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels pip install /wheels/*
COPY app/ /srv/app/
USER 10001
CMD ["gunicorn", "app.wsgi:application"]
```

The compilers never reach the final image, and the wheels are mounted only for the
install step instead of being copied into a layer of their own.

## The build context

A `.dockerignore` that excludes `.git`, tests, local virtual environments and
documentation cut the context sent to the builder from 600 MB to 9 MB. Builds got faster
even before the image got smaller.

## Results

| | Before | After |
|---|---|---|
| Image size | 1.2 GB | 140 MB |
| Pull time on a new node | 41 s | 6 s |
| CI build time | 7 min | 3 min |

The final image also contains far fewer packages for the vulnerability scanner to
complain about. Nobody had listed that as a goal, but everyone appreciated it.""",
        "days_ago": 86,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": True,
    },
    {
        "title": "The circuit breakers we removed, and why",
        "slug": "the-circuit-breakers-we-removed-and-why",
        "topics": ["reliability"],
        "author": "Sofia Lindqvist",
        "summary": (
            "We added circuit breakers to every outgoing call after a bad incident, then spent a "
            "year tuning them. Eventually we removed most of them. Here is what they got wrong "
            "for us, what replaced them and where we still use one."
        ),
        "body": """\
After a cascading failure a few years ago, we wrapped every outbound call in a circuit
breaker. The idea is sound: when a dependency starts failing, stop calling it for a
while, fail fast, and give it room to recover.

## Where they hurt

Our breakers opened based on the error rate over a sliding window. That works well for a
dependency that fails as a whole. Most of ours did not. A search cluster with one bad
shard returned errors for a fraction of queries, and the breaker opened for all of them,
turning a partial failure into a complete one.

Breakers in low-traffic services had the opposite problem. With a handful of requests
per minute, two errors in a row could trip the breaker, and it would stay open for
thirty seconds, during which every request failed without even being attempted.

We spent a long time tuning thresholds per dependency, and every setting turned out to
be wrong for some situation.

## What we use instead

Most of what we wanted from breakers, we now get from mechanisms that were already in
place:

- Retry budgets stop us from piling extra load onto a struggling dependency.
- Deadlines and per-call timeouts make failures fast.
- Concurrency limits per dependency stop a slow one from consuming all our workers.

Together these limit the damage from a failing dependency without ever refusing a
request that would have succeeded.

## Where we kept one

One breaker survived, in front of a third-party address verification service. It fails
as a whole when it fails, our traffic to it is steady, and there is a good fallback,
which is to accept the address and verify it later. Those three conditions are what make
a breaker useful, and they turned out to be rarer than we assumed.

## The lesson

A pattern that sounds great in a conference talk does not fit every call site. We now
choose resilience mechanisms after looking at how a specific dependency actually fails.""",
        "days_ago": 95,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Why we have not adopted a service mesh (yet)",
        "slug": "why-we-have-not-adopted-a-service-mesh-yet",
        "topics": ["infrastructure"],
        "author": "Tomasz Wieczorek",
        "summary": (
            "Every year someone proposes a service mesh, and every year we write down why we are "
            "not adopting one yet. This is this year's version: what we need from the network, "
            "how we get it today, and what would change our minds."
        ),
        "body": """\
We run around twenty services on Kubernetes, and a service mesh is one of the most
common suggestions in our architecture reviews. We take the idea seriously, so we keep a
written record of the decision and revisit it once a year.

## What we would want from a mesh

The usual reasons to adopt one are mutual TLS between services, consistent retries and
timeouts, traffic shifting for canary releases, and uniform metrics for every hop. We
care about all of these.

## How we get them today

- Encryption: internal traffic stays on a private network, and the few services that
  handle sensitive data terminate TLS themselves, with certificates issued automatically
  by our internal CA.
- Retries and timeouts: a shared HTTP client library sets deadlines and retry budgets,
  and every service in our two main languages uses it.
- Canary releases: our deploy tool shifts traffic by adjusting replica counts between
  two deployments behind one service, which is coarse but sufficient.
- Metrics: shared client and server middleware emit the same request metrics with the
  same labels everywhere.

## What it would cost

A mesh adds a proxy to every pod, which means more memory, an extra hop on every
request, and a new control plane that must be upgraded and understood by whoever is on
call at 3 a.m. Our on-call rotation has six people. Every system we add is one more
thing they need to debug under pressure.

## What would change our minds

We wrote down the triggers that would reopen the question: a third service language that
cannot use the shared library, a compliance requirement for encrypted traffic between
every pair of services, or a need for fine-grained traffic splitting by request
attributes. None has happened yet. When one does, we expect to adopt a mesh, and we will
be glad to have a list of requirements ready.""",
        "days_ago": 110,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Store UTC, render local: our rules for dates and time zones",
        "slug": "store-utc-render-local-our-rules-for-dates-and-time-zones",
        "topics": ["frontend", "developer-tools"],
        "author": "Lucas Ferreira",
        "summary": (
            "Time zone bugs were our most common kind of frontend defect. Five written rules, a "
            "single formatting module and tests that run in unusual time zones cut them to nearly "
            "zero over the following year."
        ),
        "body": """\
A customer in Auckland reported that a task due today already showed as overdue. A week
later, a customer in Honolulu reported that every due date in the calendar view appeared
one day early. Different symptoms, same root cause: we were treating calendar dates as
timestamps.

## The rules

1. Timestamps are stored and sent as UTC, in ISO 8601 format with an explicit offset.
2. Dates without a time, like a due date or a birthday, are sent as plain `YYYY-MM-DD`
   strings and never converted to timestamps.
3. Conversion to local time happens only at display time, in one formatting module.
4. The user's time zone comes from their profile, falling back to the browser's.
5. Tests run in more than one time zone.

Rule two fixed both bugs. A due date picked in Auckland had been converted to a
timestamp at local midnight, which is still the previous day in UTC, and stored as that
day. In Honolulu, dates stored as midnight UTC were displayed in local time, which is
the previous afternoon.

## One module for formatting

All display formatting goes through a module built on the platform's `Intl` APIs:

```typescript
export function formatDateTime(iso: string, timeZone: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone,
  }).format(new Date(iso));
}
```

A lint rule forbids calling `toLocaleString` or importing date formatting libraries
anywhere else.

## Testing in unusual places

Our unit tests now run three times, with the `TZ` environment variable set to a
different zone each time:

| Zone | Why it is useful |
|---|---|
| Pacific/Auckland | ahead of UTC, with daylight saving in the southern summer |
| Pacific/Honolulu | behind UTC, with no daylight saving |
| Asia/Kathmandu | an offset of 5:45, which catches whole-hour assumptions |

## The result

Time zone bugs went from a couple a month to two in the whole following year, and both
were in code that bypassed the formatting module.""",
        "days_ago": 126,
        "updated_days_ago": 19,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "How we rotate secrets without restarting services",
        "slug": "how-we-rotate-secrets-without-restarting-services",
        "topics": ["infrastructure", "reliability"],
        "author": "Sofia Lindqvist",
        "summary": (
            "Rotating a database password used to mean a coordinated restart of every service. "
            "Dual credentials, a file watcher and a way to confirm the switch turned rotation "
            "into a routine task that now runs automatically every thirty days."
        ),
        "body": """\
We rotated credentials reluctantly, because rotation meant restarting every service that
used them, in the right order, without dropping requests. Reluctance meant that some
credentials were years old.

## Two valid credentials at a time

The key idea is that there is never a moment when only the new secret works. For the
database, each service has two roles, `api_a` and `api_b`, with identical grants.
Rotation changes the password of the role that is not in use, publishes it, waits until
every instance has switched over, and only then makes the other role eligible for the
next rotation. Most third-party providers allow two active API keys, which gives the
same overlap.

## Reloading without a restart

Our secret store's agent writes secrets into each container as files and rewrites them
when the value changes. The application watches the file and rebuilds its connection
pool when it changes:

```python
import os
import threading
import time


def watch_secret(path, on_change, interval=15.0):
    last = os.stat(path).st_mtime

    def loop():
        nonlocal last
        while True:
            time.sleep(interval)
            mtime = os.stat(path).st_mtime
            if mtime != last:
                last = mtime
                with open(path) as f:
                    on_change(f.read().strip())

    threading.Thread(target=loop, daemon=True).start()
```

The pool opens new connections with the new credential and retires old ones as they are
returned, so in-flight queries finish undisturbed.

## Confirming the switch

Rotation is only safe if we can tell when every instance has moved over. Each service
reports the credential generation it is using as a metric label, and the rotation job
waits until the old generation has reported zero connections for ten minutes before
revoking it.

## Where we are now

Database credentials and internal service tokens rotate every thirty days without anyone
being involved. The first automated rotation happened in the middle of a product launch,
and nobody noticed, which was the point.""",
        "days_ago": 143,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "When a logistic regression beat our gradient-boosted model",
        "slug": "when-a-logistic-regression-beat-our-gradient-boosted-model",
        "topics": ["machine-learning"],
        "author": "Hana Sato",
        "summary": (
            "For churn prediction, a gradient-boosted model scored slightly higher offline, yet a "
            "logistic regression won in practice. It was better calibrated, easier to explain and "
            "more stable across retrains, and those things mattered more than two points of AUC."
        ),
        "body": """\
Our customer success team uses a churn score to decide which accounts to call each week.
We built two candidate models for it: a gradient-boosted tree ensemble and a regularized
logistic regression on the same features. The boosted model had the higher AUC, 0.84
against 0.82. We shipped the logistic regression.

## Calibration

The account team does not use the ranking alone. They read the score as a probability,
to decide whether an account at 30 percent risk is worth a call this week. The boosted
model's scores were poorly calibrated: accounts it rated at 30 percent churned about 15
percent of the time. We checked this with a reliability curve, which groups accounts by
predicted probability and compares each group's average prediction with the share that
actually churned. Calibration can be corrected after the fact, but the regression's
scores were close to observed rates without any correction.

## Explanations people trust

When a score goes up, the account manager wants to know why before picking up the phone.
For the regression, each feature's contribution is its coefficient times its value,
which we show as a short list, such as seats removed in the last 30 days or three weeks
without an admin login. The team found these explanations credible and used them to open
conversations.

## Stability

We retrain monthly. The boosted model's ranking of individual accounts shifted
noticeably between retrains, even when the data barely changed, so accounts jumped on
and off the call list. The regression's rankings moved only when the customers' behavior
moved.

## The lesson

AUC measures one thing: ranking quality on a test set. The people using the model needed
calibrated probabilities, reasons they could act on and a list that did not reshuffle
every month. We chose the model that did that job, and we would choose it again. Had the
gap been ten points instead of two, the decision would have been harder, and we would
have invested in calibration and explanation tooling for the boosted model instead.""",
        "days_ago": 152,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": True,
    },
    {
        "title": "Feature flags in the frontend without the flicker",
        "slug": "feature-flags-in-the-frontend-without-the-flicker",
        "topics": ["frontend", "developer-tools"],
        "author": "Sofia Lindqvist",
        "summary": (
            "Our feature flags loaded after the page rendered, so people saw the old version for "
            "a moment before the new one replaced it. Evaluating flags on the server and shipping "
            "them with the first response removed the flicker and simplified our tests."
        ),
        "body": """\
We use feature flags for nearly every user-visible change, which lets us merge
unfinished work and release gradually. On the frontend, though, flags had an annoying
side effect: pages rendered with default flag values, fetched the real values, and then
rendered again. Users saw a button appear, disappear and reappear somewhere else.

## Why it happened

The frontend fetched flag values from our flag service after the application booted.
Until that request returned, every flag was off. On a fast connection the flicker lasted
a hundred milliseconds; on a slow one, over a second.

## Evaluating on the server

The server that renders the initial page already knows who the user is. It now evaluates
every flag the frontend needs and embeds the results in the page as a small JSON
document. The client reads that document synchronously during startup, before the first
render, so the first render is already the correct one. The client-side flag module
became a dozen lines: parse the embedded values once, and answer lookups from them, with
unknown flags treated as off.

## Keeping flags fresh

Flags can change while a page is open. Rather than switching a component under someone's
cursor, we apply updates only at natural boundaries: the next navigation or the next
full load. Kill switches, which need to take effect immediately, are the exception. A
small subscription pushes their changes, and the affected component shows a notice
instead of silently changing.

## Side benefits

Tests got simpler, because a test can set flags by rendering a page with a given set of
values instead of mocking a network request. And since the server only sends flags that
are marked as visible to the client, we stopped exposing the names of unreleased
features to anyone who opened the browser's network tab.""",
        "days_ago": 161,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Why we stopped lazy-loading everything",
        "slug": "why-we-stopped-lazy-loading-everything",
        "topics": ["frontend"],
        "author": "Lucas Ferreira",
        "summary": (
            "We had turned on lazy loading for every image and most components, and some pages "
            "got slower. Loading what is above the fold eagerly, and deferring only what is "
            "genuinely out of sight, fixed our largest contentful paint regression."
        ),
        "body": """\
Lazy loading is one of those optimizations that feels free. A year ago we added
`loading="lazy"` to every image through our shared image component, and wrapped most
large components in dynamic imports. Some pages got faster. Several got noticeably
slower.

## The regression

Largest contentful paint on the project overview page got worse by about 600
milliseconds. The largest element on that page is the project's cover image, right at
the top. With lazy loading, the browser does not fetch an image until layout has run and
it knows the image is near the viewport. The cover image, which used to start
downloading as soon as the parser saw it, now waited for the stylesheet and the first
layout.

## Components had the same problem

The project summary card was loaded through a dynamic import. It was always visible, so
the import only added a network round trip before it could render, along with a spinner
that flashed on every page view.

## The new rules

We replaced the blanket default with a few rules that reviewers can check:

- Images likely to be above the fold load eagerly, and the single most important one
  gets `fetchpriority="high"`.
- Lazy loading is the default only for images in lists, tabs and anything below the
  first screen.
- Components are split out only if they sit behind an interaction, such as a dialog or a
  tab, or are large and far down the page.

The shared image component now takes a `priority` option instead of always applying lazy
loading, so the decision is made where the knowledge is: on the page that uses it.

## Results

The overview page's largest contentful paint returned to its old value and then improved
by another 200 milliseconds thanks to the priority hint. Lazy loading is still useful to
us. It just stopped being the default answer.""",
        "days_ago": 165,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Replacing a nightly batch export with logical replication",
        "slug": "replacing-a-nightly-batch-export-with-logical-replication",
        "topics": ["databases", "infrastructure"],
        "author": "Priya Raman",
        "summary": (
            "Our analytics warehouse used to be a day behind production because of a nightly "
            "dump. Switching to logical replication into a reporting database brought the lag "
            "down to seconds, and made us think harder about schema changes."
        ),
        "body": """\
Analysts used to start every morning with a question they could not answer: what
happened yesterday afternoon? Our warehouse loaded from a nightly dump that started at 2
a.m. and finished, on a good day, by seven.

## The setup

We now use Postgres logical replication to stream selected tables from the primary into
a dedicated reporting database. On the primary, a publication lists the two dozen tables
that analysts actually use. On the reporting database, a subscription points at that
publication. The initial sync copies each table, and from then on the subscriber applies
changes as they commit on the primary. Typical lag is under two seconds, and the
warehouse loader reads from the reporting database every few minutes instead of once a
night.

## Schema changes became a coordination problem

Logical replication does not replicate DDL. If we add a column on the primary and start
writing to it before the subscriber has that column, replication stops with an error,
and the slot on the primary starts retaining WAL. Our migration tooling now applies
additive changes to the reporting database first. That fits neatly with the
expand-then-contract approach we already used for schema changes: columns appear on the
subscriber before the primary, and disappear from the primary before the subscriber.

## Watching the slot

A logical slot that stops being consumed keeps WAL on the primary indefinitely. We alert
when retained WAL for any slot passes 10 GB, and we have a written procedure for
dropping and rebuilding the subscription if the reporting database is ever down for
long. We also set `max_slot_wal_keep_size`, so that a stuck slot invalidates itself
instead of filling the primary's disk.

## Result

Dashboards are now minutes behind production instead of a day, the 2 a.m. dump is gone,
and the primary no longer spends five hours of every night reading its own tables.""",
        "days_ago": 172,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Writing postmortems people actually read",
        "slug": "writing-postmortems-people-actually-read",
        "topics": ["reliability"],
        "author": "Amara Okafor",
        "summary": (
            "Our postmortems were thorough, long and mostly unread. A shorter template, a "
            "timeline in a fixed format and a rule that every action item has an owner and a date "
            "turned them into documents engineers now ask to see."
        ),
        "body": """\
We have written a postmortem for every significant incident for four years. A year ago
we looked at who was reading them, and found that most were read by the author, the
reviewer and nobody else.

## What was wrong with them

They were long, often several thousand words, and told the story of the incident in the
order the author had lived it. The useful parts, what broke and what we were changing,
were buried near the end. Action items were vague, like "improve monitoring", and about
half were never done.

## The new template

Every postmortem now opens with a summary of at most five sentences: what users saw, for
how long, why, and the one change that matters most. Then comes a fixed set of sections,
described in full in [our postmortem template](https://example.com/postmortem-template):

- Impact, in numbers: duration, affected customers, failed requests.
- Timeline, as a list of timestamps and events, with no commentary.
- Contributing factors, plural. We dropped the single "root cause" section, because it
  pushed people to stop at the first plausible answer.
- What went well, which is where we learn what to keep doing.
- Action items, each with an owner, a due date and a ticket.

## Blameless, but specific

Blameless does not mean vague. We name systems, settings and decisions precisely, and
describe what people knew at the time rather than what they should have known. "The
deploy tool showed a green check while the canary was failing" teaches something. "Human
error" does not.

## Reading them together

Once a month, we pick one postmortem and read it together for thirty minutes, with the
author answering questions. Attendance is voluntary, and it is one of our best attended
meetings.

## Did it work

Median length dropped to about 900 words. Action item completion rose from around half
to over 85 percent, mostly because every item now has a name and a date next to it.""",
        "days_ago": 187,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": True,
    },
    {
        "title": "What a failed failover drill taught us",
        "slug": "what-a-failed-failover-drill-taught-us",
        "topics": ["reliability", "databases"],
        "author": "Amara Okafor",
        "summary": (
            "We scheduled a database failover drill expecting to spend twenty minutes on it. It "
            "took three hours, found four problems that would have hurt in a real incident, and "
            "convinced us to run drills every quarter."
        ),
        "body": """\
Our primary database has a synchronous standby in another zone and automated failover.
We had tested failover once, when we set it up two years earlier. A lot had changed
around it since then, so we scheduled a drill for a quiet weekday morning.

## The plan

We would trigger a controlled failover, confirm that the application reconnected to the
new primary, and then fail back. We estimated twenty minutes and told support to expect
a minute of errors.

## What actually happened

The failover itself took 14 seconds, as designed. Everything around it went less
smoothly.

The API reconnected within a minute, but the background workers did not. Their
connection settings resolved the database hostname once, when the process started, so
they kept connecting to the old primary, now a read-only standby, and logged errors
about read-only transactions.

Two scheduled jobs ran on a separate host and connected directly by IP address, a
shortcut from years ago that nobody remembered.

Our database dashboard was pinned to the old primary's hostname, and showed it as
healthy and idle, which confused everyone watching.

Finally, failing back required rebuilding the old primary as a standby, which took over
two hours because of the size of the database.

## What we changed

Workers now resolve the database address for every new connection and recycle
connections every few minutes. The two jobs moved onto the shared job runner. Dashboards
select servers by role rather than by hostname. And we accepted that failing back is
slow, so we no longer fail back at all: the new primary simply stays the primary.

## Drills as routine

We now run a failover drill every quarter, with a rotating lead, announced to support in
advance. The second drill took 25 minutes and found one new problem. That feels like
about the right rate.""",
        "days_ago": 201,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Vacuum, bloat, and the table that grew to 40 GB",
        "slug": "vacuum-bloat-and-the-table-that-grew-to-40-gb",
        "topics": ["databases", "reliability"],
        "author": "Sofia Lindqvist",
        "summary": (
            "A table with half a million live rows took up forty gigabytes on disk. The culprit "
            "was a forgotten replication slot holding back vacuum, and the cleanup taught us "
            "which metrics we should have been watching all along."
        ),
        "body": """\
Our job status table should be small. It holds one row per background job that is queued
or running, which on a busy day is a few hundred thousand rows. When the disk usage
alert fired on the primary, that table was 40 GB.

## What bloat is

In Postgres, an UPDATE writes a new version of the row and leaves the old one behind.
Vacuum later reclaims old versions once no transaction could still need them. The job
table updates each row several times as a job moves through its states, so it produces
dead tuples quickly and depends on vacuum keeping up.

## Why vacuum was not keeping up

Autovacuum was running on the table almost constantly and removing almost nothing. Its
log lines reported thousands of dead tuples that were "not yet removable". Something was
holding back the xmin horizon, and the usual suspect is a long-open transaction. There
was none.

The real culprit was an inactive physical replication slot, left behind by a replica we
had decommissioned months earlier. That replica had run with `hot_standby_feedback`
enabled, so the slot still carried the last xmin it had reported, and Postgres dutifully
kept every dead row newer than that.

```sql
SELECT slot_name, slot_type, active,
       age(xmin) AS xmin_age,
       pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)) AS retained_wal
FROM pg_replication_slots;
```

The slot was inactive, its xmin was millions of transactions old, and it was also
retaining over 100 GB of WAL.

## Cleaning up

Dropping the slot let vacuum remove the dead tuples, but plain vacuum only returns space
to the operating system when the empty pages are at the end of the file. We rebuilt the
table online with pg_repack, and it went from 40 GB to 180 MB.

## What we monitor now

- the age of the oldest xmin across backends, prepared transactions and replication
  slots
- any replication slot that has been inactive for more than an hour
- the dead tuple ratio on our ten most updated tables

Each of these would have given us weeks of warning.""",
        "days_ago": 209,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Moving session storage from Postgres to Redis, and back again",
        "slug": "moving-session-storage-from-postgres-to-redis-and-back-again",
        "topics": ["databases", "infrastructure"],
        "author": "Priya Raman",
        "summary": (
            "We moved web sessions into Redis to take load off the primary database, then moved "
            "them back eighteen months later. Both decisions were reasonable at the time, and the "
            "story says more about our traffic than about either database."
        ),
        "body": """\
Two years ago our sessions table was one of the hottest in the primary database. Every
authenticated request read a row, and about a third of them wrote one back to extend the
expiry. Moving sessions into Redis looked like an obvious win, and for a while it was.

## Why we moved out

The sessions table produced a steady stream of dead tuples, which kept autovacuum busy
on the busiest database we had. Redis, with a TTL on each key, made expiry free and took
several thousand writes per second off the primary.

## What went wrong slowly

Over the next year, we added things to the session: feature flag assignments, the last
selected workspace, a cache of CSRF tokens. Sessions grew from a few hundred bytes to
several kilobytes. We also needed to answer questions like "log out every session for
this user", which in Redis meant maintaining a secondary index by hand. Twice, a bug
left that index out of sync, and a revoked session kept working until it expired.

## Why we moved back

By then the database picture had changed. Analytics reads had moved to a replica, the
primary had been upgraded, and write load was no longer the bottleneck. Putting sessions
back in Postgres gave us transactional revocation, a foreign key to the user table, and
one less system for on-call to understand.

We kept one lesson from the Redis era: we stopped extending the expiry on every request.
Sessions now refresh at most once every ten minutes, which cut session writes by over
ninety percent.

## The takeaway

Neither move was a mistake. The first bought time while the primary was struggling, and
the second paid down complexity once it no longer was. The part worth copying is the
write throttling, which, in hindsight, would have made the first move unnecessary.""",
        "days_ago": 222,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Partitioning a two-billion-row events table by month",
        "slug": "partitioning-a-two-billion-row-events-table-by-month",
        "topics": ["databases"],
        "author": "Priya Raman",
        "summary": (
            "Our events table passed two billion rows and the nightly retention job took longer "
            "than a day. Declarative partitioning by month turned retention into a metadata "
            "operation, but getting there without downtime took a careful plan."
        ),
        "body": """\
The events table records every state change in the product, and for years it was a
single heap. Once it crossed two billion rows, the nightly retention job, a DELETE of
everything older than 13 months, started taking longer than a day to finish. It also
generated enough WAL to make our replicas fall behind.

## Why partitions

With declarative partitioning, each month lives in its own table. Dropping a month of
data becomes `DROP TABLE`, which is nearly instant and writes almost no WAL. Queries
that filter on the partition key only touch the partitions they need.

```sql
CREATE TABLE events_new (
    id bigint GENERATED ALWAYS AS IDENTITY,
    occurred_at timestamptz NOT NULL,
    kind text NOT NULL,
    payload jsonb NOT NULL,
    PRIMARY KEY (id, occurred_at)
) PARTITION BY RANGE (occurred_at);

CREATE TABLE events_2024_05 PARTITION OF events_new
    FOR VALUES FROM ('2024-05-01') TO ('2024-06-01');
```

Note the primary key. On a partitioned table, unique constraints must include the
partition key, so `id` alone is no longer enough.

## The migration

We could not rewrite two billion rows in one transaction. Instead, the application
started writing to both tables, and a background job copied history month by month,
oldest first, in batches of 10,000 rows. Once the copy caught up, we compared row counts
and checksums per month, swapped the table names in a single short transaction, and
turned off the dual writes.

## Things we did not expect

Some queries got slower. Anything that filtered by `id` alone now had to look at every
partition. We found them by logging plans that touched more than six partitions, and
most were fixed by adding a time bound that the product already implied.

Creating next month's partition is now a scheduled job that runs a week early, with an
alert if the partition for the coming month does not exist.""",
        "days_ago": 227,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Migrating DNS providers with zero downtime",
        "slug": "migrating-dns-providers-with-zero-downtime",
        "topics": ["infrastructure", "reliability"],
        "author": "Amara Okafor",
        "summary": (
            "Changing DNS providers sounds simple until you remember that resolvers cache answers "
            "for as long as you told them to. Lowering TTLs a week in advance and serving "
            "identical zones from both providers made our migration uneventful."
        ),
        "body": """\
We moved our public DNS zones to a new provider this spring. The change itself is an
update to the nameserver records at the registrar. The difficulty is that caches all
over the internet hold on to old answers for as long as the TTL allows.

## Lowering TTLs early

The nameserver records for a domain are served by the parent zone, and the TTL on those
is set by the registry, often two days. We could not change that. What we could change
were the TTLs on our own records, which we lowered from an hour to five minutes a full
week before the move. If anything went wrong after the switch, no resolver would be
stuck with a bad answer for long.

## Serving identical zones from both providers

The new provider got an exact copy of every record, imported from a zone file. A script
then queried both providers directly for every name in the zone and compared the
answers. It found two mismatches, both TXT records whose quoting had been mangled by the
import, and we fixed them by hand.

For the whole transition, both providers served identical answers, so it did not matter
which one a resolver asked. We froze all DNS changes for that week to keep it that way.

## The switch

We changed the nameservers at the registrar on a Tuesday morning and watched query
volume move from the old provider to the new one over the next two days, as the parent
zone's TTL predicted. The old provider kept serving for two more weeks before we closed
the account.

## Afterwards

We raised TTLs back to an hour, except for a few records we might need to fail over
quickly. DNSSEC was the one piece we deliberately left for later, since moving a signed
zone between providers needs its own careful sequence of key changes.""",
        "days_ago": 244,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Shipping dark mode without rewriting every component",
        "slug": "shipping-dark-mode-without-rewriting-every-component",
        "topics": ["frontend"],
        "author": "Lucas Ferreira",
        "summary": (
            "Dark mode had been our top feature request for two years, and every estimate came "
            "out at a quarter of work. Semantic color tokens and CSS custom properties got it "
            "done in three weeks, most of which went into the last five percent."
        ),
        "body": """\
Dark mode was our most requested feature two years running. Every estimate we made came
out at around a quarter of work, because our components used hard-coded colors in
hundreds of places.

## Semantic tokens made it tractable

The turning point was our design token work, which had replaced raw colors with semantic
names like `surface-raised` and `text-muted`. Once components used those names, a theme
became a different mapping from names to values rather than a change to every component.

```css
:root {
  --surface-base: #ffffff;
  --surface-raised: #f6f7f9;
  --text-default: #1b1f24;
}

[data-theme="dark"] {
  --surface-base: #111418;
  --surface-raised: #1b2027;
  --text-default: #e6e9ee;
}
```

The theme attribute is set before first paint, from a saved preference or from
`prefers-color-scheme`, so there is no flash of the light theme.

## The last five percent

Swapping the tokens took a few days. The rest took three weeks:

- Around sixty components still had hard-coded colors. A lint rule against raw hex
  values in stylesheets found them all.
- Shadows that looked subtle on white were invisible on dark backgrounds, so raised
  surfaces now use a lighter background instead.
- Charts used a palette picked for white, and two of its colors failed contrast checks
  on dark.
- Uploaded images with transparent backgrounds, usually logos, became unreadable, so
  they now sit on a light tile.

## Contrast checks

Every pairing of text and background tokens is checked against the WCAG contrast ratio
in CI, in both themes. That check caught more problems than visual review did.

## Reception

Within a month, about 40 percent of active users had switched to the dark theme. The
bigger lesson for us was that an investment in the design system a year earlier turned a
quarter of work into three weeks.""",
        "days_ago": 248,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "How we shaved 300 ms off first paint on the dashboard",
        "slug": "how-we-shaved-300-ms-off-first-paint-on-the-dashboard",
        "topics": ["frontend"],
        "author": "Lucas Ferreira",
        "summary": (
            "The dashboard was the first page every user saw and the slowest page we had. "
            "Inlining critical CSS, fixing a font loading chain and splitting one large bundle "
            "brought first contentful paint down by about 300 milliseconds."
        ),
        "body": """\
Our dashboard is the first page most users see after logging in, and our real user
monitoring said it was also our slowest. On a mid-range laptop, the median first
contentful paint was 1.4 seconds.

## Looking at the waterfall

A performance trace showed a long chain of requests before anything appeared. The HTML
referenced one stylesheet, which imported a font stylesheet, which referenced the font
files. Meanwhile, a single 900 KB JavaScript bundle kept the main thread busy parsing.
Nothing could paint until the first stylesheet and its imports had loaded.

## Critical CSS first

We now inline the small amount of CSS needed to render the page shell, meaning the
header, the navigation and the loading placeholders, directly in the HTML. The full
stylesheet loads without blocking rendering, so the shell appears as soon as the HTML
arrives.

## Fonts without the chain

The import of the font stylesheet was replaced by preload hints for the two font files
used above the fold, plus `font-display: swap`, so text renders in a fallback font right
away. We also self-host the fonts now, which removed a connection to another origin.

## Splitting the bundle

The dashboard bundle included the code for the report builder, the settings pages and a
charting library, none of which are needed for first paint. Route-based code splitting
moved them into separate chunks loaded on demand, and the dashboard's initial JavaScript
fell from 900 KB to 310 KB.

## Results

Median first contentful paint dropped from 1.4 seconds to 1.1, and the 75th percentile
improved by more than 400 milliseconds. We also added a budget to CI that fails the
build if the dashboard's initial JavaScript grows past 350 KB, because gains like these
erode quietly when nobody is watching.""",
        "days_ago": 258,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Flaky test quarantine is a process, not a tool",
        "slug": "flaky-test-quarantine-is-a-process-not-a-tool",
        "topics": ["developer-tools", "reliability"],
        "author": "Daniel Brennan",
        "summary": (
            "Flaky tests were failing one CI run in five and teaching everyone to click retry. A "
            "quarantine process with owners, deadlines and a weekly report brought that down to "
            "one in fifty, and the tooling turned out to be the easy part."
        ),
        "body": """\
At our worst, one CI run in five on the main branch failed because of a test that passed
on retry. Engineers learned to press the retry button without reading the failure, which
meant real failures were being retried away too.

## Detecting flakes

The first step was data. Our CI now records every test result, and a test that both
fails and passes on the same commit is flagged as flaky. Within a week, we had a list of
47 tests, and ten of them accounted for most of the failures.

## Quarantine

A flagged test moves into quarantine: it still runs and its results are still recorded,
but it cannot fail the build. That sounds like hiding the problem, and without the rest
of the process it would be. What makes it work is that quarantine is temporary and
owned:

- Each quarantined test gets a ticket assigned to the team that owns the code under
  test.
- The ticket has a two-week deadline, after which the test is either fixed or deleted.
- A weekly report lists every quarantined test, with its owner and its age.

Deleting a test is an acceptable outcome. A test nobody can make reliable is not
protecting anything.

## What the flakes were

| Cause | Share of fixed flakes |
|---|---|
| Timing assumptions, such as sleeps and short timeouts | 38% |
| State shared between tests, usually the database | 27% |
| Dependence on test order | 15% |
| Real bugs in the product | 12% |
| Other | 8% |

The real bugs are what we point to when someone says flaky tests are only a testing
problem. Several were race conditions that customers could hit too.

## Where we are

Flaky failures now affect about one run in fifty, and the quarantine usually holds fewer
than five tests. The retry button is still there, but people read the failure before
they press it.""",
        "days_ago": 267,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": True,
    },
    {
        "title": "Structured logging conventions that made search useful again",
        "slug": "structured-logging-conventions-that-made-search-useful-again",
        "topics": ["developer-tools", "reliability"],
        "author": "Daniel Brennan",
        "summary": (
            "Our logs were free-form sentences that every team wrote differently. Moving to JSON "
            "logs with a small set of required fields, and a shared helper that fills most of "
            "them in, made searching across services fast and dependable."
        ),
        "body": """\
When an incident crossed service boundaries, following a single request through our logs
meant guessing how each team had phrased things. One service logged "user 123 not
found", another "missing user id=123", and a third mentioned the user ID only inside a
stack trace.

## Conventions, not a framework

We kept our existing logging libraries and agreed on a format: one JSON object per line,
with a short fixed message and everything variable in fields. A few fields are required
everywhere:

- `ts` and `level`, set by the formatter.
- `service`, set once at startup.
- `event`, a stable dotted name such as `invoice.payment_failed`, chosen at the call
  site.
- `request_id` and `tenant_id`, filled in automatically by middleware.

The `event` field is the important one. A search for `event=invoice.payment_failed`
finds every occurrence, no matter how the message is worded or reworded later.

## A helper for the boring parts

Request and tenant IDs are stored in context variables by the web middleware and added
to every record by a logging filter:

```python
import contextvars
import logging

request_id = contextvars.ContextVar("request_id", default=None)


class ContextFilter(logging.Filter):
    def filter(self, record):
        record.request_id = request_id.get()
        return True


log = logging.getLogger("billing")
log.warning("payment failed", extra={"event": "invoice.payment_failed", "invoice": inv.id})
```

Developers write one line, and the output carries every field the conventions require.

## What not to log

The conventions also list what must never appear in logs: credentials, tokens, full card
numbers and the contents of customer documents. A test in each service runs the log
formatter over sample records and fails if anything that looks like a secret comes out.

## The payoff

Cross-service searches by request ID now take seconds, dashboards are built on event
names rather than fragile message text, and new services get all of it by installing one
shared package.""",
        "days_ago": 282,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Rightsizing Kubernetes requests with two weeks of usage data",
        "slug": "rightsizing-kubernetes-requests-with-two-weeks-of-usage-data",
        "topics": ["infrastructure"],
        "author": "Tomasz Wieczorek",
        "summary": (
            "Our cluster was forty percent reserved and twelve percent used. Comparing each "
            "workload's requests with two weeks of real usage, then setting requests at a high "
            "percentile, let us remove a third of our nodes."
        ),
        "body": """\
Kubernetes schedules pods by their resource requests, not by what they actually use. If
every team pads its requests, the cluster fills up on paper while the machines sit
mostly idle. Ours was in exactly that state.

## Collecting the data

We pulled two weeks of per-container CPU and memory usage from our metrics system and
compared it with each container's requests. Two weeks covers a full business cycle,
including our Monday morning peak and the monthly billing run.

| Workload | CPU request | CPU p95 usage | Memory request | Memory max |
|---|---|---|---|---|
| api | 2 cores | 0.6 cores | 4 GiB | 1.3 GiB |
| worker | 1 core | 0.9 cores | 2 GiB | 1.8 GiB |
| search-indexer | 4 cores | 0.3 cores | 8 GiB | 2.1 GiB |

## Setting new values

For CPU, we set the request near the 95th percentile of usage and removed CPU limits for
most services, since throttling had caused more latency problems than noisy neighbours
ever did. Memory cannot be throttled, only killed, so we set the memory request and
limit to the same value, a comfortable margin above the observed maximum. The API, for
example, went from two cores and 4 GiB to 700 millicores and 1.6 GiB.

## Rolling it out

We changed one service at a time, watched its latency and out-of-memory kills for three
days, and then moved on. Two services needed their memory raised again after the first
week, both because of a monthly job we had not accounted for.

## Results

Requested CPU across the cluster dropped by 45 percent, the cluster autoscaler removed a
third of our nodes over the following week, and the monthly compute bill followed. We
now rerun the comparison every quarter, because requests drift upward again when nobody
is looking.""",
        "days_ago": 290,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Detecting drift in our classifier before the labels arrive",
        "slug": "detecting-drift-in-our-classifier-before-the-labels-arrive",
        "topics": ["machine-learning", "reliability"],
        "author": "Sofia Lindqvist",
        "summary": (
            "Our ticket routing classifier gets true labels weeks late, so accuracy metrics could "
            "not warn us quickly when things changed. Monitoring input distributions and "
            "prediction confidence instead caught two real shifts within days."
        ),
        "body": """\
Our support ticket classifier routes incoming tickets to the right team. We only learn
whether a routing was correct when the ticket is closed, often weeks later. If the model
quietly got worse, accuracy metrics would tell us about a month too late.

## Watch the inputs

When labels are slow, the next best thing is to watch what the model sees and what it
says. We compare the distribution of each input feature over a recent window with its
distribution in the training data. For categorical features such as the product area
chosen in the form, and for bucketed numeric features such as ticket length, we use the
population stability index:

```python
import numpy as np


def psi(expected: np.ndarray, actual: np.ndarray, eps: float = 1e-6) -> float:
    # Population stability index between two histograms over the same bins.
    e = expected / expected.sum() + eps
    a = actual / actual.sum() + eps
    return float(np.sum((a - e) * np.log(a / e)))
```

A common rule of thumb treats values above 0.2 as a significant shift. We compute it
daily and alert at that level.

## Watch the outputs

We also track the distribution of predicted classes and the model's confidence. A sudden
drop in average confidence, or a class that suddenly receives twice its usual share, is
worth a look even when every input seems stable.

## What it caught

The first alert came a week after a product launch. A new product area had appeared in
the form, the model had never seen it, and tickets about it were being spread across
three teams with low confidence. The second came when the support form was redesigned
and ticket length roughly doubled, because the form now included a template. The
predictions barely moved, but the input shift told us the training data no longer looked
like production.

## Closing the loop

An alert by itself fixes nothing. Each one opens a ticket for the model owner, who
decides between retraining, adding a rule, or noting that the shift is harmless. We also
hand-label a few dozen recent tickets every week, which gives us an accuracy estimate
weeks before the closed-ticket labels arrive.""",
        "days_ago": 304,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Migrating forty packages from setup.py to pyproject.toml",
        "slug": "migrating-forty-packages-from-setup-py-to-pyproject-toml",
        "topics": ["developer-tools"],
        "author": "Sofia Lindqvist",
        "summary": (
            "Forty internal Python packages meant forty slightly different setup.py files. Moving "
            "them all to pyproject.toml with a shared template took three weeks, removed a "
            "surprising amount of custom code and made our builds simpler."
        ),
        "body": """\
Our internal Python packages had been created over six years by copying whichever
`setup.py` was nearest. The result was forty files that did the same thing in forty
slightly different ways, including a few that read the version from a file, imported the
package to find it, or shelled out to git.

## The target

Every package now declares its metadata statically in `pyproject.toml`:

```toml
[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "fn-billing"
version = "3.4.1"
requires-python = ">=3.11"
dependencies = ["requests>=2.31", "fn-common>=1.8"]

[tool.setuptools.packages.find]
where = ["src"]
```

Static metadata means tools can read a package's name, version and dependencies without
running any code, which matters for our test selection and for the dependency graph we
publish internally.

## Doing it forty times

We wrote a conversion script that parsed each `setup.py` with Python's `ast` module,
extracted the arguments to `setup()` and filled in a template. It handled 31 packages
without help. The remaining nine had dynamic logic, and each got a short manual review.

## What we found along the way

- Six packages declared dependencies they no longer imported.
- Four claimed support for Python versions we had not tested in years.
- Two still built C extensions that had long since been replaced by pure Python code.

## Versions

Versions computed from git tags were the most common custom logic. We moved to static
versions bumped by our release tool, which writes the new version into `pyproject.toml`
and tags the commit. That is one less thing that behaves differently on a CI runner with
a shallow clone.

## The result

Every package builds with the same command, and the build backend is declared
everywhere. Building all forty wheels in CI takes a third of the time it used to, mostly
because the unused extension builds are gone and no build needs the full git history any
more.""",
        "days_ago": 317,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Our on-call handbook, version three",
        "slug": "our-on-call-handbook-version-three",
        "topics": ["reliability", "developer-tools"],
        "author": "Amara Okafor",
        "summary": (
            "Our on-call handbook grew from a page of phone numbers into a guide that new "
            "engineers read before their first shift. This post walks through what is in version "
            "three, what we cut, and why every alert now links to a runbook."
        ),
        "body": """\
The first version of our on-call handbook was a list of phone numbers and a password
manager entry. The second was a forty-page document that nobody finished. Version three
is about eight pages, and new engineers read it before their first shift.

## What is in it

- What on-call means here: response times, when to escalate, and a plain statement that
  escalating is never a failure.
- How to hand over: a short written summary at the end of each shift, in a fixed format.
- Where things are: dashboards, logs, the deploy tool and the status page.
- How to declare an incident, and who does what once it is declared.
- How on-call is paid, and how to take time off after a rough night.

The last item was new in version three, and it was the one people thanked us for.

## Every alert links to a runbook

An alert that wakes someone up should tell them what to do. Each alert definition now
has a required field linking to its runbook, which covers what the alert means, how to
confirm it, and the first steps to take. The structure is described in [the runbook
guide](https://example.com/runbook), and an alert without a runbook cannot be merged.

## What we cut

We removed the detailed architecture descriptions, which went stale quickly and belong
in service documentation. We also removed a long troubleshooting section that duplicated
the runbooks, badly.

## Shadowing

Before joining the rotation, every engineer spends a week shadowing, receiving pages
alongside the primary without being responsible for them. Then comes a reverse shadow
week, where they are primary and an experienced engineer is their backup.

## Keeping it alive

The handbook has an owner who changes every six months, and anyone on call can propose
changes. The handover summaries are the best source of edits: when three people in a row
write that something was confusing, that part gets rewritten.""",
        "days_ago": 322,
        "updated_days_ago": 76,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Reproducible dev environments with a single make target",
        "slug": "reproducible-dev-environments-with-a-single-make-target",
        "topics": ["developer-tools", "infrastructure"],
        "author": "Daniel Brennan",
        "summary": (
            "Setting up a laptop for our main application used to take a day and a patient "
            "colleague. A single make target that checks prerequisites, starts dependencies in "
            "containers and seeds data now does it in about fifteen minutes."
        ),
        "body": """\
A new engineer's first day used to follow a pattern: install a list of tools from an
outdated wiki page, discover three missing steps, and spend the afternoon pairing with
someone who remembered them. By evening, the app would usually start.

## One entry point

Today the setup instructions are one line: clone the repository and run `make dev`. The
target calls a script that lives in the repository, versioned with the code it sets up,
so it cannot fall behind:

```bash
#!/usr/bin/env bash
set -euo pipefail

./scripts/check-tools.sh python3.12 node docker
python3.12 -m venv .venv
.venv/bin/pip install -q -r requirements-dev.lock
docker compose up -d postgres redis
./scripts/wait-for-port.sh localhost 5432
.venv/bin/flask db upgrade
./scripts/seed-dev-data.sh
echo "Ready: run 'make run' and open localhost:8000"
```

## Checking before doing

The first step checks that the required tools are present, at the right versions, and
prints exactly what to install if they are not. Most setup failures we used to see were
a wrong Python version or a Docker daemon that was not running, and a clear message up
front beats a stack trace twenty minutes in.

## Services in containers

Postgres and Redis run in containers, with versions pinned to match production. Nobody
needs to install databases locally any more, and nobody has a mysterious old Postgres
left over from a previous job.

## Safe to rerun

Every step can be run again without harm. Creating the virtual environment reuses an
existing one, migrations apply only what is missing, and the seed step skips itself when
data exists. When something breaks, the first advice is to run `make dev` again, and
that usually works.

## Testing the setup itself

A weekly CI job runs `make dev` on a fresh machine image. When it breaks, we find out
before the next new hire does. Setup now takes about fifteen minutes, most of it spent
downloading images and packages.""",
        "days_ago": 328,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Idempotency keys for our payment webhooks",
        "slug": "idempotency-keys-for-our-payment-webhooks",
        "topics": ["reliability", "databases"],
        "author": "Amara Okafor",
        "summary": (
            "Our payment provider delivers webhooks at least once, and occasionally a duplicate "
            "slipped through and credited an account twice. A unique constraint and a claim "
            "inside the processing transaction made the handler idempotent."
        ),
        "body": """\
Our payment provider sends a webhook for every successful charge and promises delivery
at least once. That phrase means duplicates are allowed, and occasionally they arrive
within milliseconds of each other. Twice in one month, a duplicate credited a customer's
account twice.

## Why the check failed

The handler checked whether an event had already been processed, and if not, processed
it and recorded it. Two deliveries arriving at the same moment could both pass the check
before either had recorded anything. It is a classic race, and no amount of careful
application code fixes it without help from the database.

## Let the database decide

We now claim the event by inserting a row keyed by the provider's event ID, and rely on
the primary key to reject the second attempt:

```sql
CREATE TABLE processed_webhooks (
    event_id text PRIMARY KEY,
    received_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO processed_webhooks (event_id)
VALUES ($1)
ON CONFLICT (event_id) DO NOTHING
RETURNING event_id;
```

If the insert returns a row, this delivery owns the event. If it returns nothing,
another delivery got there first, and we acknowledge the webhook without doing anything
else.

## One transaction

The claim, the credit to the account and any follow-up records are written in a single
transaction. If two deliveries race, the second insert waits on the first transaction's
uncommitted row. When the first commits, the second does nothing; if the first rolls
back, the second proceeds. A crash halfway through rolls everything back, claim
included, so the provider's next retry processes the event cleanly.

## Side effects

Some work cannot be rolled back, like sending a receipt email. Those actions are written
to an outbox table in the same transaction, and a separate worker sends them afterwards.
The email goes out only if the credit committed.

## Beyond webhooks

The same pattern now protects every handler that consumes at-least-once messages from
outside our systems: a unique key from the sender, a claim inside the transaction that
does the work, and an outbox for side effects. The duplicate credits have not come back.""",
        "days_ago": 333,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Retry budgets: how we stopped retries from turning blips into outages",
        "slug": "retry-budgets-how-we-stopped-retries-from-turning-blips-into",
        "topics": ["reliability", "infrastructure"],
        "author": "Amara Okafor",
        "summary": (
            "A brief database hiccup became a forty-minute outage because every layer of our "
            "stack retried three times. Replacing per-request retry counts with a retry budget "
            "per client keeps retries useful during blips and harmless during real failures."
        ),
        "body": """\
The incident started with a database failover that should have caused about twenty
seconds of errors. It caused forty minutes of them.

## Retry amplification

Our request path had three layers: the edge proxy, the API service and an internal
accounts service, each calling the next. Each layer retried failed calls up to three
times. When the accounts database became briefly unavailable, one user request could
turn into three calls to the API, nine calls to the accounts service and twenty-seven
attempts against the database. As the database came back, it faced many times its normal
load, and fell over again.

## Budgets instead of counts

A retry count limits retries per request. A retry budget limits retries as a fraction of
all traffic. Our shared client library now allows retries only while they make up less
than ten percent of recent requests:

```python
class RetryBudget:
    def __init__(self, ratio=0.1, min_per_sec=10, window=10):
        self.ratio = ratio
        self.floor = min_per_sec * window
        self.requests = SlidingCounter(window_seconds=window)
        self.retries = SlidingCounter(window_seconds=window)

    def record_request(self):
        self.requests.add()

    def try_retry(self) -> bool:
        allowed = max(self.floor, self.ratio * self.requests.total())
        if self.retries.total() >= allowed:
            return False
        self.retries.add()
        return True
```

During a brief blip, few requests fail, retries stay well within budget, and users see
no errors. During a real outage, the budget runs out within seconds, and the extra load
on the struggling dependency stops.

## Retry at one layer

We also decided that only the layer closest to the failing dependency retries. Upper
layers pass errors through, with a header marking the error as already retried. That
alone removed most of the amplification.

## Backoff with jitter

The retries that do happen wait for an exponentially growing delay with random jitter,
so that clients do not retry in synchronized waves.

## The next failover

Three months later, the same database failed over again. Errors lasted 23 seconds.""",
        "days_ago": 337,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": True,
    },
    {
        "title": "Semantic search with pgvector: what worked at our scale",
        "slug": "semantic-search-with-pgvector-what-worked-at-our-scale",
        "topics": ["machine-learning", "databases"],
        "author": "Hana Sato",
        "summary": (
            "We added semantic search over five million document chunks without a new database, "
            "using the pgvector extension. HNSW indexes, a fix for filtered queries and a hybrid "
            "score with keyword search made it both fast and relevant."
        ),
        "body": """\
When we added semantic search to our document library, the first question was whether we
needed a dedicated vector database. We had five million document chunks, a team that
knew Postgres well, and a strong preference for not running another stateful system. We
tried pgvector first.

## Storing and indexing

Each chunk gets a 384-dimensional embedding from a small model, stored right next to the
chunk:

```sql
CREATE EXTENSION IF NOT EXISTS vector;

ALTER TABLE doc_chunks ADD COLUMN embedding vector(384);

CREATE INDEX doc_chunks_embedding_idx
    ON doc_chunks USING hnsw (embedding vector_cosine_ops)
    WITH (m = 16, ef_construction = 64);

SELECT id, document_id
FROM doc_chunks
WHERE workspace_id = $1
ORDER BY embedding <=> $2
LIMIT 20;
```

An HNSW index finds approximate nearest neighbors quickly, and a query for the top 20
chunks takes a few milliseconds.

## The filtering trap

Every query is restricted to one workspace. With an approximate index, Postgres walks
the graph to collect nearest neighbors and applies the workspace filter afterwards. For
a small workspace, most of those neighbors belonged to other workspaces, and the query
returned a handful of results, or none.

Raising the search breadth with `hnsw.ef_search` helped, at a cost in latency. What
worked was routing by workspace size: small workspaces skip the vector index and do an
exact scan of their own chunks, which is fast when there are only a few thousand, while
large workspaces use the index. Newer pgvector releases add iterative index scans, which
address the same problem more directly.

## Hybrid ranking

Pure vector search was poor at exact matches, like an invoice number or a product code.
We now run a full-text query and a vector query, and merge the two result lists with
reciprocal rank fusion. On our search judgment list, the hybrid beat either method
alone.

## At our scale

The index is about 12 GB and fits in memory on our database replicas. If we outgrow what
a replica can hold, we will revisit the choice, but for now, one less database is worth
a lot.""",
        "days_ago": 344,
        "updated_days_ago": 99,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Replacing a pile of shell scripts with a tiny internal CLI in Go",
        "slug": "replacing-a-pile-of-shell-scripts-with-a-tiny-internal-cli",
        "topics": ["developer-tools"],
        "author": "Sofia Lindqvist",
        "summary": (
            "Our scripts folder had grown to sixty shell scripts with overlapping flags and no "
            "tests. Replacing the most used ones with one small CLI gave us consistent help text, "
            "proper error handling and a binary that works the same on every laptop."
        ),
        "body": """\
Every team accumulates a `scripts/` folder. Ours held sixty files: some Bash, some
Python, and a few that needed a tool only one person had installed. Flags were
inconsistent, and the best documentation for most scripts was their author.

## Why Go

We wanted a single binary with no runtime to install, that behaves the same on macOS and
Linux, and that anyone on the team could extend. Go fit well: the standard library
covers HTTP, JSON and running processes, and cross-compiling for our laptops and CI
runners is one command.

## The shape of it

The CLI is called `fn`, and each subcommand lives in its own file and registers itself:

```go
var dbShell = &Command{
    Name:  "db-shell",
    Usage: "fn db-shell [--env staging|production] [--readonly=false]",
    Run: func(args []string) error {
        fs := flag.NewFlagSet("db-shell", flag.ExitOnError)
        env := fs.String("env", "staging", "target environment")
        readonly := fs.Bool("readonly", true, "open a read-only session")
        fs.Parse(args)
        return openDBShell(*env, *readonly)
    },
}

func init() { register(dbShell) }
```

`fn help` lists every command with its usage line, generated from the same definitions,
so the help text cannot drift away from the code.

## Migrating gradually

We did not rewrite all sixty scripts. We looked at CI configuration and asked around to
find the fifteen scripts used most, and ported those first. Others were ported when
someone needed to change them. Twenty were deleted, because nobody could say what they
were for.

## Safer defaults

Porting was a chance to fix defaults. The database shell opens read-only unless asked
otherwise, production commands require typing the environment name to confirm, and every
command that changes something prints what it is about to do and supports `--dry-run`.

## Distribution

CI builds the binary on every merge and publishes it to our internal package repository,
and `fn` itself warns when a newer version is available. New engineers install one tool
and have everything.""",
        "days_ago": 353,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Why our schema migrations run in two phases",
        "slug": "why-our-schema-migrations-run-in-two-phases",
        "topics": ["databases", "reliability"],
        "author": "Priya Raman",
        "summary": (
            "Renaming a column used to mean a maintenance window. Splitting every schema change "
            "into an expand step and a contract step lets us deploy application code and "
            "migrations independently, with no downtime and an easy way back."
        ),
        "body": """\
For a long time, a column rename meant a scheduled maintenance window, a status page
notice and someone staying up late. The migration itself took seconds. The problem was
ordering: old application code was still running when the new schema landed, and it
crashed on the missing column.

## The rule

Every schema change is now split into migrations that ship in separate deploys. The
expand phase only adds things: new columns, new tables, new indexes. The contract phase
only removes things, and it is not allowed to run until every running instance of the
application has stopped reading the old shape.

## A rename, step by step

Renaming `customer.fullname` to `customer.display_name` takes three deploys:

```sql
-- deploy 1 (expand): add the column, then backfill in batches
ALTER TABLE customer ADD COLUMN display_name text;
UPDATE customer SET display_name = fullname
WHERE id BETWEEN 1 AND 50000 AND display_name IS NULL;

-- deploy 3 (contract): drop the old column
ALTER TABLE customer DROP COLUMN fullname;
```

In between, deploy 2 changes the application to write both columns and read only the new
one. Once that has been live for a full release cycle, the contract migration is safe.

## What it costs

It is slower. A rename that used to be one pull request is now three, spread over a
week. We accepted that because the slow path is predictable, and because every
intermediate state is one we can roll back to without touching data.

## Enforcing it

A check in CI parses each new migration file and fails if a single migration both adds
and drops objects. It is a blunt rule with an escape hatch, a comment that requires a
second reviewer, and in a year we have used the escape hatch twice.""",
        "days_ago": 357,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": True,
    },
    {
        "title": "How git bisect saved a release: a walkthrough",
        "slug": "how-git-bisect-saved-a-release-a-walkthrough",
        "topics": ["developer-tools"],
        "author": "Daniel Brennan",
        "summary": (
            "Two days before a release, an export started producing slightly wrong totals, and "
            "nobody knew which of 340 commits had caused it. An automated git bisect with a short "
            "test script found the culprit in nine steps and under half an hour."
        ),
        "body": """\
Two days before a planned release, someone noticed that CSV exports from the reporting
page had totals off by a cent on some rows. The previous release was fine. Between the
two were 340 commits from eleven people.

## Why bisect

Git bisect performs a binary search over history. You mark one commit as good and one as
bad, and git checks out a commit halfway between them. You test it and mark it, and the
range halves again. With 340 commits, that takes about nine steps.

## Writing a test script

Nine steps by hand is tedious, and it is easy to mark one wrongly. `git bisect run`
automates the search with any script that exits with 0 for good and 1 for bad. Ours
generated an export from a fixed fixture and compared the totals with known values:

```bash
#!/usr/bin/env bash
# exit 0 = good, 1 = bad, 125 = this commit cannot be tested
pip install -q -e . || exit 125
python scripts/export_fixture.py > /tmp/export.csv || exit 125
python scripts/check_totals.py /tmp/export.csv expected_totals.json
```

Exit code 125 tells bisect to skip a commit, which is useful when a commit in the middle
of the range does not build. With the script in place, the whole search is three
commands:

```bash
git bisect start HEAD v4.17.0
git bisect run ./bisect-check.sh
git bisect reset
```

## The culprit

Bisect pointed to a commit that replaced a hand-written rounding helper with Python's
built-in `round`. The built-in rounds halves to the nearest even digit, so an amount of
0.125 became 0.12 rather than 0.13, and it worked on floats, which cannot represent most
decimal amounts exactly. The change looked like a harmless cleanup, and it passed review
because the tests only used amounts that never ended in half a cent.

## Afterwards

The fix restored decimal arithmetic with explicit half-up rounding. We added
property-based tests for the money formatting module that generate amounts at exactly
half a cent, and we kept the bisect script in the repository. A script that checks one
important output end to end stays useful long after the bug it was written for.""",
        "days_ago": 364,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Running the job queue on spot instances without losing work",
        "slug": "running-the-job-queue-on-spot-instances-without-losing-work",
        "topics": ["infrastructure", "reliability"],
        "author": "Tomasz Wieczorek",
        "summary": (
            "Spot capacity cut our batch compute bill by more than half, but only after we made "
            "every job safe to interrupt. Here is how we handle the two-minute warning, "
            "checkpoint long jobs and keep retries from doing the same work twice."
        ),
        "body": """\
Our background workers process exports, thumbnails, reports and webhook deliveries. None
of it is latency critical, which made it a natural fit for spot instances: they cost a
fraction of the on-demand price, but can be reclaimed with two minutes of notice.

## Listening for the notice

Each worker node runs a small agent that polls the instance metadata endpoint for an
interruption notice. When one arrives, the agent marks the node as unschedulable and
signals the worker process. The worker stops taking new jobs, gives running jobs ninety
seconds to finish, and then releases whatever is left back to the queue.

## Making jobs safe to interrupt

The hard part was not the signal handling. It was that many of our jobs were not safe to
run twice. A report job that emailed a customer and then died before acknowledging its
message would email them again on retry. We went through every job type and sorted them:

- Naturally idempotent, like regenerating a thumbnail. Nothing to do.
- Idempotent with a key, like sending an email. We record a delivery key before sending
  and skip the send if the key exists.
- Long-running, like large exports. These now write a checkpoint every few thousand rows
  and resume from it.

## Keeping some on-demand capacity

Spot capacity can disappear for a whole instance type at once. We run a small on-demand
baseline, enough to keep webhook delivery within its target, and let spot capacity
handle everything above it. The autoscaler spreads spot requests across six instance
types in three zones, so a single wave of reclaims rarely takes more than a third of the
fleet.

## Results

Batch compute costs fell by 58 percent. Interruptions happen a few times a week, and
since the checkpointing work, nobody notices them.""",
        "days_ago": 372,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Graceful shutdown in Kubernetes is harder than handling SIGTERM",
        "slug": "graceful-shutdown-in-kubernetes-is-harder-than-handling",
        "topics": ["infrastructure", "reliability"],
        "author": "Tomasz Wieczorek",
        "summary": (
            "Every deploy produced a small burst of connection errors even though our services "
            "handled SIGTERM correctly. The missing piece was the delay between a pod being told "
            "to stop and the rest of the cluster learning about it."
        ),
        "body": """\
Our deploys were supposed to be invisible. Each service caught SIGTERM, stopped
accepting new connections and finished in-flight requests before exiting. Yet every
rollout produced a burst of 502 errors that lasted a few seconds.

## The race

When Kubernetes deletes a pod, two things happen at about the same time. The kubelet
sends SIGTERM to the container, and the pod is removed from the service's endpoints, a
change that then has to reach every node's proxy rules and our ingress controller. These
updates are asynchronous. For a second or two, traffic can still be routed to a pod that
has already closed its listener.

## Waiting before stopping

The fix is to keep serving for a short while after SIGTERM, until the rest of the
cluster has caught up, and only then begin the normal shutdown:

```go
ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
defer stop()
<-ctx.Done()

// Keep serving while the endpoint removal propagates.
time.Sleep(10 * time.Second)

shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
defer cancel()
if err := srv.Shutdown(shutdownCtx); err != nil {
    log.Printf("shutdown: %v", err)
}
```

## Budgeting the grace period

The sleep and the shutdown timeout must both fit inside the pod's
`terminationGracePeriodSeconds`, which defaults to 30. We set it to 45 for the API and
documented the arithmetic in our service template, so nobody trims one number without
the others.

## Keep-alive connections

One more source of errors was keep-alive connections from the ingress. Go's `Shutdown`
closes idle connections, but a client may send a request on a connection at the very
moment it is closed. Enabling retries for idempotent requests at the ingress covered
that last gap.

After these changes, a full rollout of the API produces no errors at all in our
synthetic checks.""",
        "days_ago": 380,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Fixing layout shift on the pricing page",
        "slug": "fixing-layout-shift-on-the-pricing-page",
        "topics": ["frontend"],
        "author": "Lucas Ferreira",
        "summary": (
            "Our pricing page jumped around while loading, and people sometimes clicked the wrong "
            "plan. Reserving space for images, the cookie banner and a late currency selector "
            "brought cumulative layout shift from 0.31 down to 0.02."
        ),
        "body": """\
A support ticket described it well: "I clicked Pro and got Enterprise." Our pricing page
moved content around after it first rendered, and a click timed badly could land on the
wrong button.

## Measuring it

Cumulative layout shift, one of the Core Web Vitals, measures exactly this. Our real
user data put the pricing page at 0.31 at the 75th percentile, where anything above 0.25
counts as poor. A performance trace with layout shift regions highlighted pointed to
three culprits.

## The culprits

First, the plan illustrations had no dimensions, so the browser reserved no space for
them until they loaded. Second, the cookie consent banner was inserted at the top of the
page, pushing everything else down. Third, the currency selector rendered only after a
location lookup finished, and it appeared above the plan cards.

## The fixes

Images got explicit width and height attributes, which lets the browser reserve a box of
the right aspect ratio before a single byte of the image arrives. The banner moved to a
fixed position at the bottom of the viewport, where it overlays content instead of
displacing it. The currency selector now renders immediately, showing the default
currency in a box with a fixed height, and swaps in the local currency when the lookup
returns. The box is the same size either way, so nothing below it moves.

None of these fixes were clever. Each one came down to telling the browser in advance
how much space something would need.

## Results

Layout shift at the 75th percentile went from 0.31 to 0.02, and the "wrong plan" tickets
stopped. We now measure layout shift in the performance checks that run against every
preview environment, with a budget of 0.05 for marketing pages.""",
        "days_ago": 397,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "How we version training data",
        "slug": "how-we-version-training-data",
        "topics": ["machine-learning", "developer-tools"],
        "author": "Hana Sato",
        "summary": (
            "We could always say which code trained a model, but not which data. "
            "Content-addressed snapshots in object storage, referenced by a small manifest "
            "committed next to the training code, made every model traceable to its inputs."
        ),
        "body": """\
When a model behaved oddly in production, we could always find the commit that trained
it. What we often could not find was the data. Training jobs read from tables and
buckets that had changed since, and rebuilding the exact training set was guesswork.

## Snapshots, addressed by content

Every training dataset is now written once, as a set of Parquet files in object storage,
under a path derived from a hash of its contents. Nothing ever overwrites a snapshot.
Each dataset build also produces a manifest describing what went into it:

```yaml
dataset: ticket-routing
snapshot: sha256:9c41e07b5a
created: 2024-05-02T04:10:00Z
source_query: queries/ticket_routing.sql
source_commit: 4e1d2c7
rows: 1284310
label_cutoff: 2024-04-01
files:
  - part-000.parquet
  - part-001.parquet
```

The manifest is committed to the repository alongside the training code. A training run
takes a manifest as input, and the resulting model records the manifest's hash in its
own metadata.

## Tracing a model back

Given a model in production, we read the manifest hash from its metadata, find the
manifest in git, and load the exact files it was trained on. When someone asks why the
model handles some input badly, the first step is to look for similar examples in the
training data, and that is now a query rather than an archaeology project.

## Cost

Immutable snapshots take space. We keep every snapshot referenced by a model that has
ever been in production, and garbage-collect the rest after 90 days. Our dataset storage
totals a few terabytes, which costs less per month than an hour of someone's time spent
reconstructing a dataset.

## What we did not build

We looked at dedicated data versioning tools and may adopt one later. For now, a hash, a
manifest and a lifecycle rule cover our needs, and every part of it is something the
team already understood.""",
        "days_ago": 407,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Our Terraform layout after three rewrites",
        "slug": "our-terraform-layout-after-three-rewrites",
        "topics": ["infrastructure", "developer-tools"],
        "author": "Tomasz Wieczorek",
        "summary": (
            "Our first Terraform repository was one giant state file. The second was split by "
            "resource type. The third, split by environment and blast radius, is the one we have "
            "kept for two years, and this post explains why it works for a team our size."
        ),
        "body": """\
Terraform will let you organize your code in nearly any way you like, which is how we
ended up rewriting our layout three times.

## Version one: a single state

Everything lived in one root module with one state file. A plan took eight minutes
because it refreshed every resource we owned, and a typo in a DNS record could, in
principle, produce a plan that also touched the production database. Two people could
not work at once because of the state lock.

## Version two: by resource type

We split the code into `network/`, `databases/`, `compute/` and so on. Plans got faster,
but most real changes touched several of these at once, so a single feature needed three
pull requests applied in the right order, with outputs copied between states by hand.

## Version three: by environment and blast radius

The current layout has one directory per environment, and inside each, a few stacks
grouped by how bad a mistake would be:

```hcl
# envs/production/app/main.tf
module "api" {
  source        = "../../../modules/service"
  name          = "api"
  replicas      = 6
  instance_size = "large"
  vpc_id        = data.terraform_remote_state.network.outputs.vpc_id
}
```

The network and data stacks change rarely and need two approvals. The app stack changes
weekly and needs one. Modules are shared and versioned, so staging and production run
the same code with different inputs.

## What made it stick

Three rules matter more than the directory names. Every stack plans in CI on every pull
request, with the plan posted as a comment. Nobody applies from a laptop. And a stack
must plan in under two minutes; when one grows past that, we split it.

Two years in, nobody has proposed reorganizing again, which is the best review a layout
can get.""",
        "days_ago": 417,
        "updated_days_ago": 92,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Timeouts all the way down: deadlines for a chain of requests",
        "slug": "timeouts-all-the-way-down-deadlines-for-a-chain-of-requests",
        "topics": ["reliability"],
        "author": "Amara Okafor",
        "summary": (
            "Each of our services had a thirty-second timeout, so a slow dependency could hold a "
            "request for minutes. Propagating a single deadline through the call chain, and "
            "capping each hop within it, made failures fast and predictable."
        ),
        "body": """\
When a user request passes through four services, each with its own timeout, the longest
the user can wait is not the timeout of any one of them. With retries, it can be several
times their sum. Ours could exceed two minutes, long after the user had given up and the
browser had closed the connection.

## One deadline for the whole request

The edge proxy now sets a deadline for each request, ten seconds for most endpoints, and
passes the remaining time to the next service in a header. Each service reads the
header, creates a context with that deadline, and uses it for every outgoing call:

```go
func withIncomingDeadline(r *http.Request) (context.Context, context.CancelFunc) {
    ms, err := strconv.Atoi(r.Header.Get("X-Deadline-Ms"))
    if err != nil || ms <= 0 {
        ms = 10000
    }
    // Keep a little time for our own work after downstream calls return.
    budget := time.Duration(ms)*time.Millisecond - 50*time.Millisecond
    return context.WithTimeout(r.Context(), budget)
}
```

When the deadline has passed, a service stops work and returns at once instead of
calling its dependencies.

## Per-call timeouts inside the deadline

A deadline alone does not stop one slow dependency from using up the entire budget. Each
call also has its own timeout, chosen from that dependency's latency profile:

| Dependency | p99 latency | Per-call timeout |
|---|---|---|
| permissions | 8 ms | 100 ms |
| accounts database | 15 ms | 500 ms |
| search | 120 ms | 1.5 s |
| payment provider | 900 ms | 5 s |

The effective timeout for a call is whichever is shorter: its own timeout or the time
left on the request deadline.

## Failing fast is a feature

Before this change, a slow search cluster made every page that used search hang until
the browser gave up. Now those pages return within two seconds with a partial result and
a message, and the search team sees clean timeout errors on their dashboards instead of
vague reports of slowness.

## Keeping the numbers honest

Timeouts are reviewed whenever a dependency's latency changes significantly. A timeout
chosen years ago for a service that has since become ten times faster protects nobody.""",
        "days_ago": 424,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Designing SLOs for an internal API nobody thought was critical",
        "slug": "designing-slos-for-an-internal-api-nobody-thought-was",
        "topics": ["reliability"],
        "author": "Sofia Lindqvist",
        "summary": (
            "Our internal permissions API had no service level objectives because it was just "
            "internal. Then it went down and took five products with it. Here is how we picked "
            "its SLOs, measured them and started using the error budget."
        ),
        "body": """\
The permissions service answers one question: can this user do this thing? It began as a
small internal API and gradually became a dependency of every product we have. Nobody
had written down how reliable it needed to be until the afternoon it stopped answering.

## Start from the callers

An SLO should describe what the people depending on a service need, so we started by
asking the calling teams. Two needs came up again and again: answers must be available,
and they must be fast, because most callers check permissions on the request path.

## The objectives

| SLI | Measured as | Objective over 28 days |
|---|---|---|
| Availability | non-5xx responses / all responses, at the load balancer | 99.95% |
| Latency | responses under 25 ms / all responses | 99% |
| Freshness | permission changes visible within 5 s | 99.9% |

Availability of 99.95 percent allows about 20 minutes of errors in 28 days. That was a
stretch for the service as it was, and we chose it deliberately, because it matched what
the callers needed.

## Measuring where it counts

We measure at the load balancer rather than inside the service, because a crashed
process reports no errors of its own. Freshness is measured by a probe that grants and
revokes a permission every minute and times how long each change takes to become
visible.

## Spending the budget

The error budget turned arguments into arithmetic. When the service had used most of its
budget in the first two weeks of a window, the team paused feature work and spent the
rest of the window on caching and a read replica. When the budget is healthy, they ship
faster and take more risks, which is exactly what the budget is for.

## Telling callers what to expect

Publishing the SLO also told calling teams what not to expect. Two of them added a
short-lived local cache of permission decisions, so that a brief outage now degrades
their product instead of breaking it.""",
        "days_ago": 441,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Reproducible training runs: why a seed is not enough",
        "slug": "reproducible-training-runs-why-a-seed-is-not-enough",
        "topics": ["machine-learning", "developer-tools"],
        "author": "Sofia Lindqvist",
        "summary": (
            "Two training runs with the same seed, code and data produced models with different "
            "scores. Tracking down why led us through data loading order, library versions and "
            "nondeterministic kernels, and we now record all of them."
        ),
        "body": """\
We retrained a model with the same commit, the same data snapshot and the same random
seed as the production version, expecting an identical result. The evaluation score came
out 0.8 points lower, and nothing had obviously changed.

## Sources of randomness

Setting one seed is not enough, because several libraries each keep their own random
state. Our training entry point now seeds all of them, and turns on deterministic
algorithms where the framework offers them:

```python
import os
import random

import numpy as np
import torch


def make_deterministic(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
```

Deterministic algorithms are slower for some operations, and a few operations have no
deterministic implementation at all and raise an error instead. We accept the slowdown
for release training runs and switch it off for experiments.

## Data loading order

The bigger difference turned out to be data order. One preprocessing step listed files
in a directory, and the order of that listing depends on the filesystem. On the new
machine the order was different, so the model saw its batches in a different sequence.
Sorting the file list fixed it.

## Library versions

Even with both fixes, results on different machines differed in the last decimal places.
A newer build of a numerical library on one machine used a different summation order in
one kernel. Our training image now pins every package by hash, and each model's metadata
records the image digest.

## What reproducible means for us

Bitwise reproducibility across different hardware is not realistic, and we stopped
aiming for it. Our goal is that a retrain on the same image and hardware type reproduces
the score exactly, and that a retrain anywhere else lands within a small, measured
tolerance. When a retrain falls outside that tolerance, we now know to look for a real
change rather than blaming randomness.""",
        "days_ago": 452,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "What we learned sizing our database connection pool",
        "slug": "what-we-learned-sizing-our-database-connection-pool",
        "topics": ["databases", "infrastructure", "reliability"],
        "author": "Sofia Lindqvist",
        "summary": (
            "More connections made our database slower, not faster. Here is how we measured the "
            "right pool size for our primary, why we put PgBouncer in transaction mode in front "
            "of it, and the two features we had to stop using to get there."
        ),
        "body": """\
When the API started returning slow responses under load, the first instinct was to
raise the connection pool size. We went from 20 connections per instance to 50,
deployed, and latency got worse.

## Why more connections hurt

A database server has a fixed number of CPU cores and a fixed amount of disk bandwidth.
Beyond a certain number of concurrently active queries, extra connections just queue
inside the server instead of in the application, and they bring context switching and
lock contention with them. With 30 API instances at 50 connections each, the primary was
juggling up to 1,500 backends on a 16-core machine.

## Measuring instead of guessing

We replayed production traffic against a staging copy and varied only the number of
active server connections.

| Active server connections | Throughput (queries/s) | p99 latency |
|---|---|---|
| 16 | 8,900 | 14 ms |
| 32 | 11,200 | 19 ms |
| 64 | 11,400 | 41 ms |
| 256 | 10,100 | 180 ms |

Throughput flattened out between 32 and 64 active connections while tail latency kept
climbing. We settled on 40.

## Adding a pooler

To let 30 instances keep their own pools while the server sees at most 40 active
connections, we put PgBouncer in transaction pooling mode in front of the primary. Each
application instance can hold many client connections, and PgBouncer lends out a server
connection only for the duration of a transaction.

Transaction mode has a price. Session state does not survive between transactions, so we
had to stop using session-level advisory locks and `SET` statements outside a
transaction. Server-side prepared statements were the other casualty, until we upgraded
to a pooler version that tracks them.

## Result

p99 latency under peak load dropped by about two thirds, and the primary's CPU graph
stopped looking like a wall.""",
        "days_ago": 465,
        "updated_days_ago": 184,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Our feature store is a Postgres table, and that is fine",
        "slug": "our-feature-store-is-a-postgres-table-and-that-is-fine",
        "topics": ["machine-learning", "databases"],
        "author": "Hana Sato",
        "summary": (
            "We evaluated three feature store products and ended up with a Postgres table, a "
            "nightly job and a view. For a team with a handful of models and no real-time "
            "features, it covers what we need, and we know where it would stop working."
        ),
        "body": """\
When we started training more than one model, the question of a feature store came up.
Features like the number of projects a user created in the last 30 days were computed
separately in training notebooks and in serving code, and twice the two versions
disagreed in ways that hurt model quality.

## What we actually needed

We wrote down requirements before looking at products. We needed one definition of each
feature, used for both training and serving; feature values as of a past date, for
training without leaking future information; and serving latency low enough for a
request path. We did not need streaming features, because none of our models use data
fresher than a day.

## The design

A nightly job computes every feature for every entity and appends the results to a
single table, one row per entity per day:

```sql
CREATE TABLE user_features (
    user_id bigint NOT NULL,
    as_of date NOT NULL,
    projects_created_30d integer NOT NULL,
    active_days_30d integer NOT NULL,
    seats integer NOT NULL,
    PRIMARY KEY (user_id, as_of)
);

CREATE VIEW user_features_latest AS
SELECT DISTINCT ON (user_id) *
FROM user_features
ORDER BY user_id, as_of DESC;
```

Training queries join each label to the features from the day before the labeled event,
which prevents leakage by construction. Serving reads from the latest view on a replica.

## Where it works, and where it will not

For a few million entities and a few dozen features, this is cheap and fast. Feature
definitions live in one SQL file under code review, and backfilling a new feature means
running the job for past dates.

It will stop working when we need features fresher than a day, or when the table grows
beyond what a replica serves quickly. We know those limits, and hitting either one is
our signal to revisit the decision, rather than adopting a platform in advance.

## The point

Most of the value of a feature store is discipline: one definition, point-in-time
correctness and clear ownership. All of that can be had with tools you already run.""",
        "days_ago": 479,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "A design token pipeline designers and engineers both trust",
        "slug": "a-design-token-pipeline-designers-and-engineers-both-trust",
        "topics": ["frontend", "developer-tools"],
        "author": "Daniel Brennan",
        "summary": (
            "Colors and spacing lived in a design file, a CSS file and a mobile theme, and they "
            "never agreed. A single token file, compiled into CSS variables and platform themes "
            "on every build, gave designers and engineers one source of truth."
        ),
        "body": """\
Our brand blue existed in at least five slightly different shades across the web app,
the marketing site and the mobile apps. Nobody had chosen that. Each copy had been typed
by hand from a design file at a different time.

## One file of tokens

Design tokens are named values for colors, spacing, typography and corner radii. We keep
them in a single JSON file in the frontend repository, with two layers: raw values, and
semantic tokens that refer to them.

```json
{
  "color": {
    "blue-600": { "value": "#2355d8" },
    "text-link": { "value": "{color.blue-600}" },
    "surface-raised": { "value": "#ffffff" }
  },
  "space": {
    "2": { "value": "8px" },
    "3": { "value": "12px" }
  }
}
```

Components use only semantic tokens such as `text-link`, never raw values. That
indirection later made theming possible, since a theme only has to remap semantic names.

## The build step

A small build script compiles the file into CSS custom properties for the web, a
TypeScript module for code that needs values in JavaScript, and theme files for the
mobile apps. The outputs are regenerated on every build and never edited by hand.

## Closing the loop with design

Designers edit tokens through a plugin in their design tool that exports the same JSON
format. Changes arrive as pull requests, so a token change is reviewed like code, with a
visual diff of the component library attached by CI.

## What changed

The number of distinct color values in our CSS dropped from 140 to 38. More importantly,
arguments about which blue is correct now end with a link to one line in one file.""",
        "days_ago": 494,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "A pre-commit setup that nobody disables",
        "slug": "a-pre-commit-setup-that-nobody-disables",
        "topics": ["developer-tools"],
        "author": "Daniel Brennan",
        "summary": (
            "Our first pre-commit configuration ran the whole test suite, and everyone skipped "
            "it. The current one finishes in under two seconds, fixes problems instead of only "
            "reporting them, and runs the same checks as CI."
        ),
        "body": """\
Our first attempt at pre-commit hooks ran the linter, the type checker and the unit
tests on every commit. It took over a minute, and within a month most of the team had
learned to commit with `--no-verify`.

## Fast or absent

The rule now is that hooks must finish in under two seconds for a typical commit. That
rules out anything that looks at the whole repository. Each hook runs only on the files
being committed, and slow checks, such as type checking and tests, stay in CI, where
nobody is waiting at a prompt.

```yaml
repos:
  - repo: local
    hooks:
      - id: ruff-fix
        name: ruff (lint and autofix)
        entry: ruff check --fix
        language: system
        types: [python]
      - id: ruff-format
        name: ruff (format)
        entry: ruff format
        language: system
        types: [python]
      - id: large-files
        name: reject files over 500 KB
        entry: scripts/check-file-size.sh 500
        language: script
```

Using local hooks means the tool versions come from our pinned development dependencies,
so the hooks and CI can never disagree about which version of a tool is right.

## Fix, do not just complain

Hooks that only report problems train people to ignore them. Our formatter and the
linter's autofixes rewrite the files, and the commit fails only when something could not
be fixed automatically. Most of the time, you stage the changes and commit again.

## Same checks as CI

Every check in the hooks also runs in CI, with the same versions and configuration.
Nothing passes locally and then fails in CI for a formatting reason, and someone who
skips the hooks loses nothing but time.

## Installing it for everyone

The hooks are installed by our setup script, the same one that creates the virtual
environment, so new engineers have them from their first commit. When we asked a few
months later, nobody on the team had disabled them.""",
        "days_ago": 508,
        "updated_days_ago": 220,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "A preview environment for every pull request",
        "slug": "a-preview-environment-for-every-pull-request",
        "topics": ["infrastructure", "developer-tools", "frontend"],
        "author": "Tomasz Wieczorek",
        "summary": (
            "Reviewers used to check out branches locally to see a change. Now every pull request "
            "gets its own short-lived environment with a URL and seeded data, on a shared "
            "database server, and it costs less than we expected."
        ),
        "body": """\
Reviewing a user-facing change by reading a diff is hard. For years, reviewers who
wanted to see a change had to check out the branch, run migrations and start the app
locally, which meant that most of them did not.

## What a preview is

Every pull request that touches application code gets a namespace in our staging
cluster, a deployment of the branch's image, a database on a shared server, and a URL of
the form `pr-1234.preview.internal`. A bot comments the link on the pull request once
the environment is healthy.

## How it is built

CI already builds an image for every commit. The preview step creates the database and
installs a small Helm release named after the pull request:

```yaml
preview:
  stage: deploy
  script:
    - createdb -h "$PREVIEW_DB_HOST" "pr_${PR_NUMBER}" || true
    - helm upgrade --install "pr-${PR_NUMBER}" ./chart
        --namespace "pr-${PR_NUMBER}" --create-namespace
        --set image.tag="$COMMIT_SHA"
        --set database.name="pr_${PR_NUMBER}"
    - ./scripts/seed-preview.sh "pr_${PR_NUMBER}"
```

Seeding uses the same demo data generator developers use locally, so every preview
starts with realistic-looking projects and users.

## Cleaning up

Environments are deleted when the pull request is merged or closed, and a nightly job
removes any that have been idle for three days. Without that second job we would leak a
few namespaces a week from abandoned branches.

## Cost and payoff

Previews scale to zero replicas after an hour without requests, and a small proxy wakes
them on the next one, so the steady cost is mostly the shared database server. Designers
and product managers now review changes before they merge, and we catch layout and copy
problems that used to reach production and come back as bug reports.""",
        "days_ago": 517,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Batching inference on CPU: trading latency for throughput",
        "slug": "batching-inference-on-cpu-trading-latency-for-throughput",
        "topics": ["machine-learning", "infrastructure"],
        "author": "Hana Sato",
        "summary": (
            "Running our text embedding model one request at a time wasted most of the CPU. "
            "Dynamic batching with a short wait window tripled throughput per core, and our "
            "measurements show where the latency cost starts to become noticeable."
        ),
        "body": """\
We compute text embeddings for every document a user uploads, using a small transformer
model on CPU. Requests arrived one at a time, and each one ran through the model alone.
Under load, we needed a lot of machines.

## Why batching helps

CPUs do matrix arithmetic most efficiently on larger blocks of data, using wide vector
instructions and keeping caches busy. Running one sentence through a model leaves much
of that capacity idle, and the fixed overhead of each call, such as dispatch and memory
allocation, is paid every time. Running sixteen sentences at once costs much less than
sixteen separate runs.

## Dynamic batching

Requests still arrive one at a time, so the server collects them. A batcher waits until
it has a full batch, or until a short window has passed since the first request in the
batch arrived, whichever comes first. It then runs the model once and hands each caller
its own result. The whole mechanism is about forty lines around an async queue, and
callers never know it exists.

## Choosing the numbers

We measured throughput and latency on one four-core worker under a steady stream of
requests:

| Max batch | Max wait | Throughput (docs/s) | p50 latency | p99 latency |
|---|---|---|---|---|
| 1 | 0 ms | 95 | 11 ms | 24 ms |
| 8 | 5 ms | 240 | 19 ms | 41 ms |
| 16 | 10 ms | 310 | 28 ms | 62 ms |
| 32 | 20 ms | 330 | 52 ms | 120 ms |

Past a batch of 16, throughput barely improved while latency kept climbing. We chose 16
and 10 milliseconds.

## Where it fits

Document embedding runs in the background after upload, so a few extra milliseconds are
invisible to users. For search queries, where the embedding is computed on the request
path, we use a maximum batch of four and a two-millisecond window. It is the same code
with different numbers, because the tradeoff is different.""",
        "days_ago": 527,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Using pg_stat_statements to find the queries that actually cost us",
        "slug": "using-pg-stat-statements-to-find-the-queries-that-actually",
        "topics": ["databases", "developer-tools"],
        "author": "Daniel Brennan",
        "summary": (
            "The slowest query in the log was not our most expensive one. Ranking statements by "
            "total time instead of mean time, using pg_stat_statements, changed which problems we "
            "worked on and saved a third of our database CPU."
        ),
        "body": """\
For years our approach to database performance was to open the slow query log, pick the
worst offender and fix it. It felt productive. It rarely moved the CPU graph.

## Total time beats slowest time

A query that takes four seconds and runs twice a day costs eight seconds daily. A query
that takes three milliseconds and runs forty million times a day costs more than a full
day of database time. The slow query log only shows you the first kind.

The `pg_stat_statements` extension tracks every normalized statement with its call count
and cumulative time, which makes the second kind visible:

```sql
SELECT left(query, 80) AS query,
       calls,
       round(total_exec_time / 1000) AS total_s,
       round(mean_exec_time::numeric, 2) AS mean_ms
FROM pg_stat_statements
ORDER BY total_exec_time DESC
LIMIT 10;
```

## What the top ten looked like

Our top entry was a lookup of a user's permissions, called on nearly every request and
taking under two milliseconds each time. It accounted for 19 percent of all execution
time. Three more of the top ten were variations on the same lookup from different code
paths.

None of these were slow in any individual sense, and none would ever have appeared in
the slow log.

## Fixes

The permission lookup moved to a short-lived in-process cache keyed by user and a
permissions version number that is bumped on every change. Two of the other entries were
N+1 patterns hiding behind an ORM relationship that loaded lazily inside a loop.
Together, these changes cut database CPU by roughly a third.

## Making it routine

We now reset the statistics after each release and post the top ten by total time to the
team channel every Monday. It takes five minutes to read, and it tells us where to look
next.""",
        "days_ago": 544,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Moving from a global store to a server state cache",
        "slug": "moving-from-a-global-store-to-a-server-state-cache",
        "topics": ["frontend"],
        "author": "Lucas Ferreira",
        "summary": (
            "Most of what lived in our global store was a copy of server data with hand-written "
            "loading flags. Replacing it with a query cache deleted four thousand lines of code "
            "and fixed a class of stale data bugs we had stopped noticing."
        ),
        "body": """\
Our frontend had a global store that held almost everything: the current user, projects,
members, notifications and UI state. Over time we noticed that nearly all of it was a
copy of data that lived on the server, plus loading and error flags that every feature
reimplemented slightly differently.

## The problem with copies

A copy of server data goes stale, and someone has to decide when to refresh it. In our
store, that decision was scattered across dozens of action creators. Renaming a project
updated the project list but not the breadcrumb, because the breadcrumb read from a
different slice. Bugs like that were common enough that we had stopped filing them.

## Server state is a cache

We moved server data into a query cache library. Each piece of data has a key, a fetch
function and a staleness policy, and components simply ask for it:

```typescript
function useProject(projectId: string) {
  return useQuery({
    queryKey: ["project", projectId],
    queryFn: () => api.getProject(projectId),
    staleTime: 30_000,
  });
}

const rename = useMutation({
  mutationFn: api.renameProject,
  onSuccess: () => queryClient.invalidateQueries({ queryKey: ["project"] }),
});
```

Invalidating by key prefix refreshes everything that depends on projects, so the
breadcrumb and the list can no longer disagree.

## What stayed in the store

Very little: which sidebar panels are open, draft form state that must survive
navigation, and the theme. That fits comfortably in a few small context providers.

## The migration

We moved one feature at a time, starting with read-only views. For each, we wrote the
query hooks, switched the components over and deleted the store slice. The whole
migration took two months alongside normal work and removed around four thousand lines,
and the stale breadcrumb has not come back.""",
        "days_ago": 551,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Typed API clients generated from our OpenAPI schema",
        "slug": "typed-api-clients-generated-from-our-openapi-schema",
        "topics": ["frontend", "developer-tools"],
        "author": "Sofia Lindqvist",
        "summary": (
            "Hand-written fetch wrappers let the frontend and the API drift apart silently. "
            "Generating types from the OpenAPI document on every build turned mismatches into "
            "compile errors, and made API changes easier to review."
        ),
        "body": """\
For a long time the frontend talked to our API through hand-written functions. Each one
had a TypeScript type for the response that someone had written by reading the backend
code. When the backend changed a field, the type stayed the same and the bug appeared at
runtime.

## The schema as the source of truth

Our backend already published an OpenAPI document generated from its route definitions.
We made that document a build artifact, checked into the repository so that changes show
up in review, and generated TypeScript types from it:

```typescript
import type { paths } from "./generated/api";

type ProjectResponse =
  paths["/projects/{id}"]["get"]["responses"]["200"]["content"]["application/json"];

export async function getProject(id: string): Promise<ProjectResponse> {
  const res = await fetch(`/api/projects/${id}`);
  if (!res.ok) throw new ApiError(res.status);
  return res.json();
}
```

In practice we use a small typed fetch wrapper that infers these types from the path, so
most call sites never spell them out.

## Catching drift in CI

CI regenerates the OpenAPI document from the backend and fails if it differs from the
checked-in copy. It then regenerates the types and type-checks the frontend. A backend
change that renames a field now fails the frontend build in the same pull request,
instead of failing in a user's browser a week later.

## Reviewing API changes

A pleasant side effect is that every API change is visible as a diff to one file.
Reviewers who never read backend code can still see that an endpoint gained a required
parameter or lost a field, and ask whether that was intended.

## What it did not solve

Types only describe shapes. They will not tell you that a field which used to be filled
in is now empty for some accounts. For that, we still rely on contract tests for the
handful of endpoints our mobile apps depend on.""",
        "days_ago": 568,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Making CI twice as fast by caching the right things",
        "slug": "making-ci-twice-as-fast-by-caching-the-right-things",
        "topics": ["developer-tools", "infrastructure"],
        "author": "Daniel Brennan",
        "summary": (
            "Our CI pipeline had crept up to twenty-two minutes. Caching dependencies by lockfile "
            "hash, reordering Docker layers and splitting tests by recorded timings brought it "
            "down to ten, without buying bigger runners."
        ),
        "body": """\
Twenty-two minutes is long enough to start something else and forget to come back. That
was the median time for our main CI pipeline at the start of the year, and it had been
growing by about a minute per quarter.

## Where the minutes went

We exported timings for every step over a month of runs. Installing dependencies took
four minutes, building the Docker image six, and the test suite eleven, all on a single
machine. The rest was checkout and setup.

## Dependencies, keyed by lockfile

Dependency installs were cached, but the cache key included the branch name, so every
new branch started cold. Keying the cache only on the lockfile hash means any branch
with the same dependencies reuses the same cache:

```yaml
- uses: actions/cache@v4
  with:
    path: ~/.cache/pip
    key: pip-${{ runner.os }}-${{ hashFiles('requirements.lock') }}
    restore-keys: |
      pip-${{ runner.os }}-
```

Install time dropped to about forty seconds on a cache hit.

## Docker layers

Our Dockerfile copied the whole source tree before installing dependencies, so any code
change invalidated every layer after it. Reordering it to copy the lockfile and install
dependencies first, then copy the code, and exporting the layer cache to our registry,
cut image builds to under two minutes for typical changes.

## Splitting tests by timing

Finally, we split the test suite across four parallel jobs. Splitting by file count
produced uneven shards, because a few integration test files took minutes each. We now
record each file's duration on the main branch and assign files to shards so that each
shard's total time is roughly equal.

## Results

The median pipeline now takes ten minutes. The slowest shard sets the pace, so we track
it separately and rebalance when it drifts. The pipeline costs about the same per run as
before, since four short jobs use roughly as much machine time as one long one.""",
        "days_ago": 583,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Evaluating search relevance with a judgment list",
        "slug": "evaluating-search-relevance-with-a-judgment-list",
        "topics": ["machine-learning"],
        "author": "Hana Sato",
        "summary": (
            "We kept shipping search changes that looked better in demos and worse in the "
            "metrics. A judgment list of 600 real queries, graded by people who know the product, "
            "gave us an offline score we now check before every ranking change."
        ),
        "body": """\
For a long time, changes to our search ranking were judged by trying a few queries and
deciding whether the results looked better. That is how we shipped two changes in a row
that looked great in demos and reduced click-through in production.

## What a judgment list is

A judgment list is a set of queries, each with candidate results graded by a person for
relevance. Given a ranking, you can score how well it puts the relevant results near the
top. Once the list exists, evaluating a change takes minutes and needs no live traffic.

## Building ours

We sampled 600 queries from our search logs, weighted toward frequent ones but with a
long tail of rare ones. For each query, we pooled the top ten results from our current
ranking and from two experimental ones, so graders saw a range of candidates. Support
engineers and product specialists graded each result on a four-point scale, from
irrelevant to exactly what the user wanted. Every pair was graded by two people, and
disagreements went to a third.

## The metric

We use normalized discounted cumulative gain at ten, which rewards putting highly graded
results near the top and discounts each lower position logarithmically.

| Ranking | NDCG@10 | Online click-through |
|---|---|---|
| Keyword only | 0.61 | baseline |
| Keyword plus recency boost | 0.58 | -4% |
| Learned ranker v1 | 0.69 | +7% |
| Learned ranker v2 | 0.72 | +9% |

The recency boost was one of the changes that looked good in demos. The offline score
would have caught it.

## Keeping it honest

A judgment list ages. New content appears, the product changes, and results the graders
never saw start ranking highly. We refresh a quarter of the queries every few months and
track the share of top results that are ungraded. When that share passes 20 percent for
a change, the offline score is no longer trustworthy for it, and we grade more before
deciding.

## What it changed

Ranking changes now come with an offline score in the pull request. It does not replace
online experiments, but it means we only run the experiments worth running.""",
        "days_ago": 587,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Autoscaling workers on queue depth instead of CPU",
        "slug": "autoscaling-workers-on-queue-depth-instead-of-cpu",
        "topics": ["infrastructure", "reliability"],
        "author": "Tomasz Wieczorek",
        "summary": (
            "Our workers scaled on CPU, which is a poor signal for jobs that mostly wait on the "
            "network. Scaling on queue depth, and alerting on the age of the oldest message, made "
            "the fleet react in seconds instead of minutes and shrink when it should."
        ),
        "body": """\
Background workers spend most of their time waiting: for a webhook receiver to respond,
for an upload to object storage, for the database. CPU usage barely moves as the queue
grows, so our CPU-based autoscaler added workers late and removed them early.

## A better signal

What we care about is how long jobs wait before they start. Two metrics describe that
well: the number of messages waiting, and the age of the oldest one. We export both to
our metrics system and feed queue depth to the Horizontal Pod Autoscaler as an external
metric:

```yaml
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: worker
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: worker
  minReplicas: 3
  maxReplicas: 60
  metrics:
    - type: External
      external:
        metric:
          name: queue_messages_ready
        target:
          type: AverageValue
          averageValue: "20"
```

With an average value target, the autoscaler aims for about 20 waiting messages per
worker.

## Scaling down slowly

Scaling up fast and down slowly avoids thrashing when load arrives in bursts. The
autoscaler's behavior settings allow the fleet to double every 30 seconds, but remove at
most 10 percent of workers per minute, after a five-minute stabilization window.

## The age alarm

Queue depth can look healthy while a single slow job type starves. We alert separately
when the oldest message in any queue is older than its target, which is one minute for
webhooks and fifteen for reports.

## Results

During the Monday morning peak, the fleet now reaches its working size in under two
minutes, compared with about twelve before. Overnight it shrinks to the minimum, and our
worker bill dropped by about a fifth.""",
        "days_ago": 602,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Finding the index that Postgres refused to use",
        "slug": "finding-the-index-that-postgres-refused-to-use",
        "topics": ["databases"],
        "author": "Priya Raman",
        "summary": (
            "A query on our orders table ignored a perfectly good index and scanned eight million "
            "rows. The cause was a type mismatch introduced by a library upgrade, and EXPLAIN "
            "ANALYZE found it in about ten minutes once we knew what to look for."
        ),
        "body": """\
A report endpoint started timing out on a Tuesday afternoon. Nothing had been deployed
to it for weeks, and the table it read had an index on exactly the column in the WHERE
clause. Postgres was scanning the whole table anyway.

## Reading the plan

The first step is always the same: capture the actual query with its parameters and run
it under EXPLAIN ANALYZE on a replica.

```sql
EXPLAIN (ANALYZE, BUFFERS)
SELECT id, total_cents
FROM orders
WHERE external_ref = 48213377::numeric;
```

The plan showed a sequential scan with a filter of `(external_ref)::numeric = 48213377`.
That cast on the column side is the whole story. The index is on `external_ref` as a
bigint. Once the column is wrapped in a cast, the planner is comparing a different
expression, and the plain index no longer applies.

## Where the numeric came from

A recent upgrade of our data access library changed how it bound one kind of integer
parameter, sending it as numeric instead of bigint. Postgres resolved the comparison by
casting the column up rather than the parameter down. Nothing in our own code had
changed, which is why nobody looked there first.

## The fix and the guard

We pinned the parameter type explicitly in the query builder, and the plan went back to
an index scan taking under a millisecond. Then we added a test that runs EXPLAIN on a
handful of critical queries and fails if any of them contains a sequential scan on a
large table in the test fixture. It is crude, but it would have caught this one before
it reached production.

## The lesson

When an index is ignored, look for something wrapped around the column: a cast, a
function call, a different collation. The planner is usually right about what it can and
cannot use.""",
        "days_ago": 615,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "What a screen reader taught us about our forms",
        "slug": "what-a-screen-reader-taught-us-about-our-forms",
        "topics": ["frontend"],
        "author": "Lucas Ferreira",
        "summary": (
            "We ran our signup and billing forms through a screen reader and could not complete "
            "either one. Fixing labels, error announcements and focus handling took a week, and "
            "the changes made the forms better for everyone."
        ),
        "body": """\
We had run automated accessibility checks for years, and they mostly came back green.
Then a new engineer on the team, who uses a screen reader every day, tried our signup
form and could not finish it.

## What went wrong

A few of us sat with her and watched. The problems were not exotic:

- Several inputs had placeholder text but no label, so the screen reader announced them
  only as "edit text".
- Validation errors appeared in red under each field but were never announced, so
  submitting the form seemed to do nothing at all.
- The plan picker was a set of styled boxes that could not be reached with the keyboard.
- After an error, focus stayed on the submit button, far from the first field that
  needed fixing.

The automated checks had flagged only some of the missing labels, because a shared
component set `aria-label` to an empty string, which fooled them.

## The fixes

Every input now has a visible label connected with `for` and `id`. Error messages are
linked to their inputs with `aria-describedby`, and an error summary at the top of the
form sits in a live region, so it is announced when it appears. On a failed submit,
focus moves to that summary, which links to each field in error. The plan picker became
a group of real radio buttons, styled to look as it did before.

## Making it stick

We added keyboard-only and screen reader walkthroughs of the main flows to our release
checklist, and the shared form components now refuse to render an input without a label
in development builds.

## The side effects

Form completion rates went up slightly for all users after the change, most likely
because errors became easier to find. Accessibility work tends to help far more people
than the ones it was aimed at.""",
        "days_ago": 623,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Labeling guidelines mattered more than the model",
        "slug": "labeling-guidelines-mattered-more-than-the-model",
        "topics": ["machine-learning"],
        "author": "Hana Sato",
        "summary": (
            "Two annotators disagreed on a quarter of our training labels, and no model change "
            "could make up for that. Rewriting the labeling guidelines with examples and edge "
            "cases raised agreement to 91 percent and gave us our biggest accuracy gain of the "
            "year."
        ),
        "body": """\
We spent a month trying to improve our content moderation classifier with better
architectures and more features, and gained about a point of accuracy. Then someone
measured how often two annotators agreed on the same item, and found that it was 74
percent of the time.

## Why agreement matters

If two careful people disagree on a quarter of the examples, the labels contain a lot of
noise, and a model trained on them learns the noise. Label quality also caps measured
accuracy: when the test labels are inconsistent, a better model can look worse.

## What the disagreements were about

We reviewed two hundred disagreements and grouped them. Almost none were careless
mistakes. Most came from guidelines that were silent or vague:

- Whether quoted text counted as the author's own content.
- Whether a borderline joke should be judged by intent, or by how it would read to a
  stranger.
- What to do with content in a language the annotator did not read well.
- How to label items that broke two rules at once.

## Rewriting the guidelines

The new guidelines are organized around decisions rather than definitions. Each category
has a short rule, three clear examples, and a list of near misses with the reason each
falls on one side or the other. Quoted text, multiple violations and unfamiliar
languages each get an explicit rule, which for the last one is to skip the item and flag
it.

We changed the process too. Every two weeks, annotators label a shared calibration set
of fifty items, and the results are discussed in a short meeting. Items that still cause
disagreement become new examples in the guidelines.

## Results

Agreement rose to 91 percent. We relabeled the training and test sets under the new
guidelines and retrained the same model as before. Accuracy went up by six points, far
more than any model change had achieved. The model had not been the bottleneck; our
definition of the task had.""",
        "days_ago": 632,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "The alert that fired 400 times a week",
        "slug": "the-alert-that-fired-400-times-a-week",
        "topics": ["reliability", "developer-tools"],
        "author": "Amara Okafor",
        "summary": (
            "One disk usage alert accounted for more than half of all pages in a quarter, and "
            "almost none of them needed action. Auditing every alert against one question, what "
            "should the person do, cut our pager volume by eighty percent."
        ),
        "body": """\
During a quarterly on-call review, someone pulled the numbers. One alert, disk usage
above 80 percent on our worker nodes, had fired about 400 times a week. Most of those
pages came at night and resolved on their own within minutes, when log rotation ran.

## Every page needs an action

We agreed on a rule for paging alerts: a page must require a human to do something,
soon. If the right response is to wait, or to look tomorrow, it is not a page. Applied
to every alert we had, that rule produced this:

| Outcome | Alerts |
|---|---|
| Kept as a page | 23 |
| Moved to a ticket or the daily report | 41 |
| Rewritten to alert on symptoms | 12 |
| Deleted | 35 |

## Predicting, not thresholding

The disk alert was rewritten to fire only when the disk is on track to fill within the
next four hours, based on the recent trend:

```yaml
- alert: DiskWillFillIn4Hours
  expr: predict_linear(node_filesystem_avail_bytes{mountpoint="/"}[1h], 4 * 3600) < 0
  for: 15m
  labels:
    severity: page
  annotations:
    runbook: https://example.com/runbooks/disk-full
```

A disk at 85 percent that is not growing no longer wakes anyone. A disk at 50 percent
that is filling fast does.

## Symptoms over causes

Several alerts moved from causes to symptoms. Instead of paging on high CPU on the API
nodes, which sometimes mattered and usually did not, we page when the API's error rate
or latency objective is burning too fast. The causes are still graphed, and they are the
first thing the runbook tells you to check.

## Results

Pages per week fell by about 80 percent in the following quarter, while the share of
incidents we detected before a customer reported them went up. With fewer pages, the
ones that remained were taken seriously.""",
        "days_ago": 640,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Serving a small ranking model next to the API instead of behind it",
        "slug": "serving-a-small-ranking-model-next-to-the-api-instead-of",
        "topics": ["machine-learning", "infrastructure"],
        "author": "Hana Sato",
        "summary": (
            "Our search ranking model ran as a separate service, and the network hop cost more "
            "than the model itself. Loading it into the API process as a small ONNX file cut "
            "ranking latency from 45 to 6 milliseconds and removed a service from on-call."
        ),
        "body": """\
Search results in our product are reranked by a small model that scores each candidate
by its likely relevance to the user. It started life as a separate service with its own
deployment, autoscaling and alerts, which seemed like the grown-up way to serve a model.

## The hop was the cost

When we profiled a search request, scoring 100 candidates took about 3 milliseconds of
compute. The call to the ranking service took 45 at the median, most of it spent
serializing candidate features, crossing the network and queueing inside the service.
The model was the cheapest part of its own service.

## Moving it in-process

The model is a gradient-boosted tree ensemble, about 4 MB once exported to ONNX. Each
API process now loads it at startup and scores candidates directly:

```python
import numpy as np
import onnxruntime as ort

session = ort.InferenceSession("models/ranker.onnx")
input_name = session.get_inputs()[0].name


def score(features: np.ndarray) -> np.ndarray:
    return session.run(None, {input_name: features.astype(np.float32)})[0].ravel()
```

The model file is a versioned artifact fetched during the image build, so each API
release pins a specific model.

## What we gave up

Model updates are now tied to API deploys. Those happen several times a day, so it has
not been a constraint. Memory per API process went up by about 30 MB. And the data
science team no longer has a service they fully control, so we agreed on a contract
instead: a model file, a feature specification and an offline evaluation report,
reviewed like any other change.

## Results

Ranking latency went from 45 milliseconds to 6 at the median, the search endpoint's p99
improved by about 80 milliseconds, and the ranking service, with its dashboards and
alerts, was switched off. For a model this size, the separate service had been solving a
problem we did not have.""",
        "days_ago": 650,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Test selection in our monorepo: only run what a change can affect",
        "slug": "test-selection-in-our-monorepo-only-run-what-a-change-can",
        "topics": ["developer-tools"],
        "author": "Daniel Brennan",
        "summary": (
            "Running every test on every change stopped scaling once our monorepo passed forty "
            "packages. A dependency graph built from import statements lets CI run only the tests "
            "a change could affect, and a nightly full run catches what it misses."
        ),
        "body": """\
Our monorepo holds around forty Python packages: services, shared libraries and tools.
Running the full test suite took over half an hour of machine time, and most pull
requests touched one or two packages.

## Building the graph

Each package declares its internal dependencies, but those declarations were incomplete.
So we build the graph from the code itself, by parsing import statements:

```python
import ast
from pathlib import Path


def imported_packages(pkg_dir: Path, internal: set[str]) -> set[str]:
    found = set()
    for path in pkg_dir.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            found.update(n.split(".")[0] for n in names if n.split(".")[0] in internal)
    return found
```

Given the files changed in a pull request, we find the packages they belong to, then
walk the reversed graph to find every package that depends on them, directly or
indirectly. Those packages' tests run, and the rest are skipped.

## Things that are not imports

Some dependencies never show up as imports: shared configuration, test fixtures, the
lockfile. Changes to a short list of such paths trigger the full suite, and so does any
change to the CI configuration itself.

## The safety net

Selection will occasionally miss something, such as code loaded by name through a plugin
registry. A nightly run of the full suite on the main branch catches those cases, and
when it finds one, we add the missing edge to a small file of manual dependencies.

## Results

The median pull request now runs about a fifth of the test suite, and CI time for
typical changes dropped from 34 minutes to 9. In six months, the nightly run has caught
two misses, each fixed with a one-line addition to the manual edges.""",
        "days_ago": 657,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "How we test database migrations against a production-sized snapshot",
        "slug": "how-we-test-database-migrations-against-a-production-sized",
        "topics": ["databases", "developer-tools", "reliability"],
        "author": "Priya Raman",
        "summary": (
            "A migration that takes two seconds on a laptop can lock a production table for "
            "twenty minutes. We now run every migration against a nightly, anonymized copy of "
            "production before it merges, and record how long each lock is held."
        ),
        "body": """\
Most of our migration incidents had the same shape. The change was correct, the tests
passed, and on a production-sized table it held a lock long enough to stall every
request that touched it.

## The nightly snapshot

Each night a job restores the latest production backup into an isolated instance, runs
an anonymization script over anything personal, and publishes the result as a disk
snapshot. Restoring from that snapshot takes about six minutes, which is fast enough to
do for each pull request.

## The CI job

Any pull request that adds a file under `migrations/` triggers a job that restores the
snapshot, applies the new migrations and reports timing:

```bash
#!/usr/bin/env bash
set -euo pipefail
./scripts/restore-snapshot.sh "$SNAPSHOT_ID" "$DATABASE_URL"
export PGOPTIONS="-c lock_timeout=5s"
start=$(date +%s)
flask db upgrade
end=$(date +%s)
echo "migrations took $((end - start))s" | tee -a "$GITHUB_STEP_SUMMARY"
```

A second process samples `pg_locks` every 100 milliseconds during the run and records
the longest time any `AccessExclusiveLock` was held. If that number is over two seconds,
the job fails and links to [our guide to safe
migrations](https://example.com/docs/safe-migrations).

## What it has caught

In the first three months it flagged eleven migrations. Most were index creations
missing `CONCURRENTLY`. A couple added a column with a volatile default, which forces a
table rewrite, and one added a foreign key that validated every existing row while
holding a lock. Each had a known safe rewrite.

## Limits

The snapshot is a day old, and it sees none of the concurrent traffic. A migration that
needs only a brief lock can still queue behind a long-running query in production, and
block everything behind it. For that, every migration sets a short `lock_timeout`, so
the worst case is a failed deploy rather than a stalled site.""",
        "days_ago": 674,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Dependency updates on a schedule, not in a panic",
        "slug": "dependency-updates-on-a-schedule-not-in-a-panic",
        "topics": ["developer-tools", "reliability"],
        "author": "Daniel Brennan",
        "summary": (
            "We used to update dependencies only when a security advisory forced us to, which "
            "made every update large and risky. A weekly automated batch, grouped by risk and "
            "handled by a rotating owner, keeps us close to current with little drama."
        ),
        "body": """\
For years our dependency strategy was to leave things alone until a security advisory
arrived. Then someone would discover that upgrading one library required upgrading five
others, two of them across major versions, and the fix for a critical vulnerability
would take a week.

## Small and often

An update bot now runs once a week. It opens pull requests grouped by risk, rather than
one per package:

- Patch releases of everything, in one pull request.
- Minor releases of development tools, in another.
- Minor releases of runtime libraries, grouped by ecosystem.
- Major releases, one pull request each, never merged automatically.

The first group merges automatically when CI passes. The others wait for a person.

## A rotating owner

Pull requests from bots are easy to ignore, and for a while ours piled up. What fixed it
was naming an owner each week, on a rotation across the team. The owner merges the safe
groups, investigates failures, and opens tickets for major upgrades that need real work.
Most weeks it takes an hour or two.

## Reading changelogs

For runtime libraries, the owner skims the changelog before merging. That catches things
tests do not, like a changed default for a timeout, or a deprecation warning that will
become an error in the next major release.

## Advisories now

When a security advisory arrives, the fix is usually a patch release on a version we
already run, and it ships the same day. Over the last year, our runtime dependencies
went from a median of fourteen months behind the latest release to under two.

## What we would do differently

We should have started with the grouping. Our first attempt opened one pull request per
package, produced forty a week, and taught everyone to ignore the bot.""",
        "days_ago": 681,
        "updated_days_ago": 295,
        "featured": False,
        "editors_pick": False,
    },
    {
        "title": "Where our cloud bill was actually going",
        "slug": "where-our-cloud-bill-was-actually-going",
        "topics": ["infrastructure"],
        "author": "Sofia Lindqvist",
        "summary": (
            "We assumed compute dominated our cloud bill. Tagging every resource and breaking the "
            "bill down by team showed that data transfer and forgotten storage were a third of "
            "it, and fixing those was far easier than shrinking servers."
        ),
        "body": """\
When finance asked us to cut infrastructure spend by fifteen percent, our first instinct
was to look at instance sizes. Before doing that, we spent a week making the bill
readable.

## Tagging everything

Every resource now carries a `team` and a `service` tag, enforced by a policy check in
our Terraform pipeline that rejects untagged resources. For anything created outside
Terraform, a weekly report lists untagged resources and files a ticket with the owning
team. After a month, 97 percent of spend was attributed.

## What the breakdown showed

| Category | Share of bill | What we had assumed |
|---|---|---|
| Compute | 44% | 70% |
| Data transfer | 21% | under 5% |
| Managed databases | 17% | 15% |
| Storage and snapshots | 14% | 10% |
| Everything else | 4% | - |

Data transfer was the surprise. Most of it was traffic between availability zones: our
services talked to each other across zones constantly, and cross-zone traffic is billed
on both ends.

## The fixes

- Topology-aware routing keeps most service-to-service calls inside the caller's zone,
  which cut cross-zone transfer by about 70 percent.
- A lifecycle rule on the backup bucket moves objects older than 30 days to cold storage
  and deletes them after a year. Along the way we found snapshots of servers deleted
  three years earlier.
- Log shipping now compresses batches before sending, which halved the bytes leaving
  each node.

## Outcome

These changes alone saved 19 percent, beating the target without resizing a single
server. The instance review still happened later, but with less pressure and much better
data.""",
        "days_ago": 693,
        "updated_days_ago": None,
        "featured": False,
        "editors_pick": False,
    },
]
