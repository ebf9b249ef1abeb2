"""Sites written for other generators, read into the entries a Fieldnotes import saves.

`detection` tells which generator wrote a folder; one module per format reads it (`hugo_zola`
for Hugo and Zola `content/` trees, `jekyll` for a Jekyll site with its Liquid in `liquid`,
`wordpress` for a WXR export); `site` holds what every format gives: the posts with their
authors, old addresses and the folder their images are found in, and what was left out.
"""
