"""gaia_agent: a general research and question-answering agent (a CAST template)."""
