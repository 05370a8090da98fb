"""The metric–human correlation study (Galley et al. 2015, sec. 5): plain numpy, no Django.

`data` holds the inputs (items with rated references, system outputs, human differences per
criterion and system pair, per-system human scores), `stats` the per-item statistics, `loo`
leaving a system's own response out of its references, `units` the random assignments of
items to observation units and the item bootstrap, `observe` the unit-level observations,
`correlation` vectorised Spearman/Kendall, bootstrap intervals and the paired difference,
`table` Table 2 per criterion, `systems` the system-level table, `engine` the whole study.

The field's meta-evaluation statistics, on plain (systems, items) grids of scores (METHODS.md,
"Meta-evaluation"; `segment_level` puts them in a study's run): `segments` the segment-level
correlations (no grouping and item-grouped, with item-bootstrap intervals), `metaeval` pairwise
accuracy, tie-calibrated accuracy (acc_eq) and soft pairwise accuracy (SPA), `significance`
PERM-BOTH between two metrics and the significance clusters of many.
"""
