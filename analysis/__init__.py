"""What the numbers mean: summaries, statistics, tables, figures and PDF reports."""
