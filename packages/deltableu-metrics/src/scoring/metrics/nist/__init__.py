"""NIST (Doddington 2002, sec. 3) as NIST's ``mteval-v13a.pl`` computes it, and weighted ΔNIST.

Definition (mteval-v13a ``compute_ngram_info``, ``score_segment``, ``nist_score``; see
``papers/004…`` for a walk through that script):

* Information weight of an n-gram, counted over **all references of the whole test set**::

      Info(w1..wn) = -log2( count(w1..wn) / count(w1..wn-1) )   (unigrams: / total ref tokens)

* Per item, matched information of order n = Σ over distinct hypothesis n-grams g found in some
  reference of ``Info(g) · min(#g(h), max_j #g(r_j))`` (clipped against the maximum count over
  the item's references).
* ``score = Σ_{n=1..5} (Σ_i info_n,i / max(Σ_i |n-grams_n(h_i)|, 1)) · BP``,
  ``BP = exp(-β · ln²(min(c / r, 1)))`` with ``β = -ln 0.5 / ln²(2/3) = 4.21617…`` (BP = 0.5 at
  ratio 2/3), ``c`` = total hypothesis words, ``r`` = total *average* reference length.

Options: ``tokenize`` ("13a" = mteval ``-c``, case kept; "mteval" = mteval's default
normalization, i.e. the v11b/v13a rules after folding ASCII A–Z to a–z, exactly as mteval run
without ``-c``; "intl", "char", "zh", "none" = sacrebleu's tokenizers), ``lowercase`` (Python
``str.lower()`` before tokenizing, as sacrebleu), ``order`` (5) and ``mteval_compat``.

``mteval_compat`` (on by default, so that the default score is the one mteval-v13a prints;
``--no-mteval-compat`` gives the textbook value) reproduces a Perl truthiness quirk of mteval: the
information weight is computed as ``-log2(count(g) / total ref tokens)`` whenever the (n-1)-gram
prefix *string* is ``"0"``, i.e. for every bigram whose first token is ``0`` (a trigram
``0 x y`` has the prefix ``"0 x"``, which Perl treats as true, so only bigrams are affected).
With it on, scores equal mteval's printed scores; with it off, they are the textbook values
(they differ only when a reference has a bigram starting with the token ``0``).

ΔNIST (``DeltaNIST``, registry name ``dnist``) weights matched information like ΔBLEU's paper
definition (``DESIGN.md``; Galley et al. 2015, eq. 1): per item and order n,
``num_n = Σ_{g distinct in h} Info(g) · max_{j: g ∈ r_j} w_j · min(#g(h), #g(r_j))`` and
``den_n = (max_j w_j) · |n-grams_n(h)|``; the corpus ratio is ``max(Σ num_n, 0) / Σ den_n``.
With every weight 1 it equals NIST exactly.

Choices where the sources leave room (documented here as STYLE.md asks):

* Items with different numbers of references: mteval needs the same number for every segment
  and uses total reference words / number of reference sets; we sum each item's mean reference
  length, which is the same thing when every item has the same number of references.
* Information weights count every reference whatever its weight (ΔNIST too), as the brevity
  penalty of ΔBLEU uses every reference (DESIGN.md).
* Empty corpus or zero total reference length: BP = 1 (mteval divides by zero there);
  an order with no hypothesis n-grams contributes 0 (mteval: division by max(count, 1)).
* ΔNIST needs one reference with w > 0 per item, like ΔBLEU, and weights in [-1, 1].

Layout: :mod:`.tables` (the prepared references as arrays: n-gram tables shared with the BLEU
family's index and per-entry information weights), :mod:`.metric`; the tokenizers are every
metric's (:mod:`..tokenizers`, re-exported here).
"""

from ..tokenizers import ALL_TOKENIZERS as TOKENIZERS
from ..tokenizers import clear_token_cache, encode_nist, make_tokenizer
from .metric import BETA, NIST, DeltaNIST
from .tables import InfoWeights, NISTIndex, ReferenceCounts, entry_info, reference_counts

__all__ = [
    "BETA",
    "NIST",
    "TOKENIZERS",
    "DeltaNIST",
    "InfoWeights",
    "NISTIndex",
    "ReferenceCounts",
    "clear_token_cache",
    "encode_nist",
    "entry_info",
    "make_tokenizer",
    "reference_counts",
]
