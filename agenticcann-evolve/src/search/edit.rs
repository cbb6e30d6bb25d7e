//! Applying a model's edit to a parent kernel: whole files or SEARCH/REPLACE diffs.
