"""Posts in and out of the store as Markdown files with front matter, and the demo content.

It sits on top: it may import any area (it saves through `authoring.store`), and nothing but
`cli` imports it.
"""
