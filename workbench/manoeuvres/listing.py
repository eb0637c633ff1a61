"""The handling tests' names, for the command line's help without importing the tests (and the model) themselves.

workbench.manoeuvres.catalogue checks on import that its tests are these, in this order.
"""

NAMES = ("iso4138", "iso7401_step", "iso7401_sweep", "r140_swd", "iso3888_2", "iso7975", "iso21994", "acceleration",
         "elasticity", "coastdown")
