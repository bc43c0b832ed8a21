"""ppt_agent: turns a topic into a slide deck (outline first, then HTML slides). A CAST template."""
