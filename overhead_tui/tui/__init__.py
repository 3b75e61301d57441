"""The Textual app: consumes engine events and summaries; holds no measurement logic."""
