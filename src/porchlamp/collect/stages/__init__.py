"""The collection pipeline's stages, one module each, in the order a run takes them: what changed
(a later run), metadata, pull requests, timelines, returning authors, accounts, CI, good first issues,
dependents. Each stage decides what to ask for and what to write; the forge's adapter asks and reads.
"""
