"""Model training: the code behind every shipped model (recipes that run it: training/ at the repository root)."""
