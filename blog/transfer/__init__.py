"""Posts in and out of the store as Markdown files with front matter."""
