"""The review app's routers: pages, page and forest images, review decisions and the quick check."""
