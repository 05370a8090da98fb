"""The metric–human correlation study (Galley et al. 2015, sec. 5): plain numpy, no Django.

`data` holds the inputs (items with rated references, system outputs, human differences per
system pair), `units` the random assignments of items to observation units and the unit sums,
`correlation` vectorised Spearman/Kendall with confidence intervals and the significance of a
difference between two metrics, `engine` the Table 2 and Figure 2 computations.
"""
