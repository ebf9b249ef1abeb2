"""What readers see: the listing of all posts, a topic's and an author's, post pages and an
editor's preview of a draft in the same template, search, feeds, the sitemap and head metadata.

It may import `config`, `extensions`, `models`, `database`, `catalog`, `markup`, `web` and
`media`; never `authoring` (what both need lives in `catalog` and `media`), `transfer` or `cli`.
"""
