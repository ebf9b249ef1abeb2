"""HTTP plumbing shared by every area: htmx's page-or-fragment answer, validators and cache
headers, the page cache, paging, hosts, errors and templating filters.

It may import `config`, `extensions`, `models`, `database` and `markup`; never `media`,
`reading`, `authoring`, `transfer` or `cli` (it names their endpoints as strings only).
"""
