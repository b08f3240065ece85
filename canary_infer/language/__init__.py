"""The constraint language: hand features, formulas over them, and formulas in plain words."""
