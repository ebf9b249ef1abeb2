"""What readers see: the listing, post pages, search, feeds, metadata and pictures."""
