"""HTTP plumbing shared by every area: htmx, caching, headers, errors and templating."""
