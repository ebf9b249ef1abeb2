"""What editors do: log in, find, write, schedule and publish posts, keep their history and
trash, upload images, manage topics, authors and accounts.

It may import `config`, `extensions`, `models`, `database`, `catalog`, `commands`, `markup`,
`fulltext`, `web` and `media`; never `reading` (what both need lives in `catalog`,
`fulltext` and `media`),
`transfer` or `cli`.
"""
