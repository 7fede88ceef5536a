"""The docs' own tooling: ``python -m docs.numbers`` regenerates every quoted effect."""
