"""What editors do: log in, write and publish posts, upload images, manage accounts."""
