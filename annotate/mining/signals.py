"""What mining tells the apps above it, which it must not import: candidates were added to a
dataset (sent after each batch is written, with `dataset_id`; the rating app gives them slots
in the dataset's open campaigns). Candidates are written with bulk_create, which sends no
post_save, hence a signal of its own."""

from django.dispatch import Signal

candidates_added = Signal()
