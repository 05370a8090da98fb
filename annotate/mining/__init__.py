"""Mining candidate references from a corpus of conversational triples (ΔBLEU paper, §4.1).

No database or storage here, only files and plain Python: `corpus` streams rows out of a file,
`index` builds and searches a BM25 index over them with bm25s, `candidates` picks what to add
to a seed.
The services in `annotate.mining.services.mining` tie these to the database and to jobs.
"""
