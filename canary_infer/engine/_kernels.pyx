# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled kernels of the exact engine (built from this file at install; see engine.py).

Each kernel computes exactly what a numpy function of engine.py computes, which stays as the
reference (and as the engine when this module was not built): the tests compare the two."""

import numpy as np

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort


cdef extern from *:
    void __builtin_prefetch(const void *addr) nogil


cdef inline int64_t _lengths_used(int64_t code) noexcept nogil:
    return (code >> 12) + ((code >> 8) & 15) + ((code >> 4) & 15) + (code & 15)


cdef struct _Table:
    int64_t *keys     # the distinct states, in order of first arrival
    double *sums      # their summed counts
    int32_t *slots    # open addressing: 1 + index into keys, 0 for empty
    int64_t size      # states so far
    int64_t mask      # slots - 1 (a power of two less one); keys and sums hold half as many
    int shift         # 64 less the bits of a slot's index: the hash's top bits pick the slot


cdef int _table_init(_Table *t, int bits) noexcept nogil:
    cdef int64_t nslots = (<int64_t> 1) << bits
    t.keys = <int64_t *> malloc((nslots // 2 + 1) * sizeof(int64_t))
    t.sums = <double *> malloc((nslots // 2 + 1) * sizeof(double))
    t.slots = <int32_t *> calloc(nslots, sizeof(int32_t))
    t.size, t.mask, t.shift = 0, nslots - 1, 64 - bits
    if t.keys == NULL or t.sums == NULL or t.slots == NULL:
        return -1
    return 0


cdef void _table_free(_Table *t) noexcept nogil:
    free(t.keys)
    free(t.sums)
    free(t.slots)


cdef inline int64_t _slot(_Table *t, int64_t key) noexcept nogil:
    cdef uint64_t h = (<uint64_t> key) * <uint64_t> 0x9E3779B97F4A7C15
    return <int64_t> (h >> t.shift)


cdef int _table_grow(_Table *t) noexcept nogil:
    """Twice the slots (and room for twice the states), the states placed again."""
    cdef _Table u
    cdef int64_t r, i
    if _table_init(&u, 64 - t.shift + 1) != 0:
        _table_free(&u)
        return -1
    for r in range(t.size):
        u.keys[r] = t.keys[r]
        u.sums[r] = t.sums[r]
        i = _slot(&u, t.keys[r])
        while u.slots[i] != 0:
            i = (i + 1) & u.mask
        u.slots[i] = <int32_t> (r + 1)
    u.size = t.size
    _table_free(t)
    t[0] = u
    return 0


cdef inline int32_t _table_add(_Table *t, int64_t key, double w) noexcept nogil:
    """The index of ``key`` (added if new), its count increased by ``w``; -1 if out of memory."""
    cdef int64_t i = _slot(t, key)
    cdef int32_t s
    while True:
        s = t.slots[i]
        if s == 0:
            if 2 * (t.size + 1) > t.mask:  # at most half full
                if _table_grow(t) != 0:
                    return -1
                return _table_add(t, key, w)
            t.keys[t.size] = key
            t.sums[t.size] = w
            t.size += 1
            t.slots[i] = <int32_t> t.size
            return <int32_t> (t.size - 1)
        if t.keys[s - 1] == key:
            t.sums[s - 1] += w
            return s - 1
        i = (i + 1) & t.mask


cdef inline int64_t _recap(int64_t key, int64_t ones, const int64_t[:, ::1] rest) noexcept nogil:
    """engine._recap on one packed state: every capped column brought back under its cap (the
    columns capped at 1 by their high bits in ``ones``, the others by rows of offset, cap, mask)."""
    cdef Py_ssize_t q
    cdef int64_t v
    if ones:
        key = key - ((key & ones) >> 1)
    for q in range(rest.shape[0]):
        v = ((key >> rest[q, 0]) & rest[q, 2]) - rest[q, 1]
        if v > 0:
            key = key - (v << rest[q, 0])
    return key


cdef inline int64_t _lite(int64_t key, int lite_off, int64_t lite_mask, int64_t lite_t,
                          int64_t lite_bits) noexcept nogil:
    """engine._Shaper.final on one packed state: past the honour cap, which honours are held is
    forgotten and the count capped (``lite_off`` -1: no such rule)."""
    cdef int64_t v
    if lite_off >= 0:
        v = (key >> lite_off) & lite_mask
        if v >= lite_t:
            key = (key & ~lite_bits) - ((v - lite_t) << lite_off)
    return key


cdef inline uint8_t _table_truth(int64_t key, int64_t t, const int64_t[:, ::1] tcols, const uint8_t[::1] truth,
                                 const int64_t[::1] truth_at) noexcept nogil:
    """engine._Evaluator.truth_of by truth table t: its entry at the index the state's columns
    make (rows of ``tcols``: offset, mask, shift; a mask of 0 ends the row)."""
    cdef Py_ssize_t q
    cdef int64_t index = 0
    for q in range(tcols.shape[1] // 3):
        if tcols[t, 3 * q + 1] == 0:
            break
        index |= ((key >> tcols[t, 3 * q]) & tcols[t, 3 * q + 1]) << tcols[t, 3 * q + 2]
    return truth[truth_at[t] + index]


cdef enum:
    _BLOCK = 16  # pairs whose slots are fetched together


def expand(const int64_t[::1] keys, const double[::1] counts, int low, int k,
           const int64_t[::1] step_keys, const double[::1] step_counts, const int64_t[::1] by_len,
           const int64_t[::1] fit_of_room,
           int64_t ones, const int64_t[:, ::1] rest,
           const uint8_t[::1] allowed, const int64_t[::1] keep,
           const int64_t[::1] hcp_cap, int hcp_off, int64_t hcp_mask,
           int most_off, int64_t most_mask, int64_t most_max,
           int lite_off, int64_t lite_mask, int64_t lite_t, int64_t lite_bits,
           bint moves):
    """One level of the programme (engine.build_seat's loop over a suit, with _pairs, the
    shaper and _dedup_keys): every state with every contribution whose length fits in the
    cards it has left (``fit_of_room[13 - used]`` of them, in ``by_len`` order), summed,
    brought back under the caps (``ones``; ``rest`` rows of offset, cap, mask), kept if its
    length prefix is ``allowed`` (and its HCP within ``hcp_cap``, its ``most`` column at most
    ``most_max``; an offset of -1 turns either off), masked by ``keep``, with the lite honour
    rule applied (``lite_off`` -1: none); the kept ones counted by state.

    Returns (distinct states sorted, their counts, pairs formed, moves) with moves None, or,
    with ``moves``, (row, contribution, index of the state reached) of every pair kept, in
    the order the pairs are formed (by row, then contribution)."""
    cdef Py_ssize_t n = keys.shape[0], m, r, j
    cdef int64_t total = 0, kept = 0, key, code, shift = low + 12 - 4 * k
    cdef int64_t room
    cdef bint ok, failed = False
    cdef _Table t
    cdef int32_t idx
    cdef int64_t c
    cdef int64_t bkey[_BLOCK]
    cdef int64_t bcol[_BLOCK]
    cdef Py_ssize_t j0, j1, nb, q
    for r in range(n):
        room = 13 - _lengths_used((keys[r] >> low) & 0xFFFF)
        total += fit_of_room[room]
    cap = max(total, 1)  # the pairs kept, at most
    rows_a = np.empty(cap if moves else 0, np.int32)
    cols_a = np.empty(cap if moves else 0, np.int32)
    ids_a = np.empty(cap if moves else 0, np.int32)
    cdef int32_t[::1] rows_v = rows_a, cols_v = cols_a, ids_v = ids_a
    cdef int64_t[::1] found_v
    cdef double[::1] sums_v
    if _table_init(&t, 12) != 0:
        _table_free(&t)
        raise MemoryError
    try:
        with nogil:
            for r in range(n):
                room = 13 - _lengths_used((keys[r] >> low) & 0xFFFF)
                m = fit_of_room[room]
                j0 = 0
                while j0 < m:  # a block of pairs at a time: their states found, their slots fetched, then added
                    nb = 0
                    j1 = j0 + _BLOCK if j0 + _BLOCK < m else m
                    for j in range(j0, j1):
                        c = by_len[j]
                        key = _recap(keys[r] + step_keys[c], ones, rest)
                        code = key >> shift
                        ok = allowed[code] != 0
                        if ok and hcp_off >= 0:
                            ok = ((key >> hcp_off) & hcp_mask) <= hcp_cap[code]
                        if ok and most_off >= 0:
                            ok = ((key >> most_off) & most_mask) <= most_max
                        if not ok:
                            continue
                        key = _lite(key & keep[code], lite_off, lite_mask, lite_t, lite_bits)
                        bkey[nb] = key
                        bcol[nb] = c
                        __builtin_prefetch(&t.slots[_slot(&t, key)])
                        nb += 1
                    for q in range(nb):
                        idx = _table_add(&t, bkey[q], counts[r] * step_counts[bcol[q]])
                        if idx < 0:
                            failed = True
                            break
                        if moves:
                            rows_v[kept] = <int32_t> r
                            cols_v[kept] = <int32_t> bcol[q]
                            ids_v[kept] = idx
                        kept += 1
                    if failed:
                        break
                    j0 = j1
                if failed:
                    break
        if failed:
            raise MemoryError
        found = np.empty(t.size, np.int64)
        sums = np.empty(t.size, np.float64)
        found_v = found
        sums_v = sums
        for r in range(t.size):
            found_v[r] = t.keys[r]
            sums_v[r] = t.sums[r]
    finally:
        _table_free(&t)
    order = np.argsort(found)  # the states are distinct: no order among equals to keep
    out_moves = None
    if moves:
        rank = np.empty(len(order), np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        out_moves = (rows_a[:kept], cols_a[:kept], rank[ids_a[:kept]])
    return found[order], sums[order], total, out_moves


def last_suit(const int64_t[::1] keys, const double[::1] counts, const int64_t[::1] rows,
              const int64_t[::1] pidx, const int32_t[::1] table_of, const int64_t[::1] cards,
              const int64_t[::1] step_keys, const double[::1] step_counts, const int64_t[::1] by_len,
              const int64_t[::1] first_of_length,
              const uint8_t[::1] truth, const int64_t[::1] truth_at, const int64_t[:, ::1] tcols, int nhcp,
              int hcp_off, int64_t hcp_mask, int most_off, int64_t most_mask, int64_t most_max,
              double[::1] ph, double[::1] completions, const int64_t[:, ::1] auxcols, double[::1] aux,
              int lite_off, int64_t lite_mask, int64_t lite_t, int64_t lite_bits):
    """The last suit's pairs of the given third-suit states (engine.SeatTable.finish's loop over
    _blocks, for states whose formula is settled or read from a truth table): each state
    ``rows[i]`` with every contribution of ``cards[i]`` cards (``by_len`` from
    ``first_of_length[cards]`` to ``first_of_length[cards + 1]``), weighted by its holdings'
    count where the formula holds (``table_of[i]`` -1: it holds; else truth table t, at
    ``truth[truth_at[t] + index]``, the index made of the columns in row t of ``tcols``:
    (offset, mask, shift) triples, a mask of 0 ending the row) and the ``most`` column is
    within ``most_max`` (an offset of -1: no such test).  Adds each weight times the state's
    count to ``ph[pattern * nhcp + HCP]`` and the weight to ``completions[state]``, and with
    ``auxcols`` rows (offset, mask, cap) to ``aux[(aux values, each capped) * nhcp + HCP]``
    after the lite honour rule (``lite_off`` -1: none); returns the pairs formed."""
    cdef Py_ssize_t n = rows.shape[0], i, j, q, naux = auxcols.shape[0]
    cdef int64_t r, c, key, pairs = 0, t, v, code
    cdef double w, cnt
    with nogil:
        for i in range(n):
            r = rows[i]
            t = table_of[i]
            cnt = counts[r]
            for j in range(first_of_length[cards[i]], first_of_length[cards[i] + 1]):
                c = by_len[j]
                key = keys[r] + step_keys[c]
                pairs += 1
                w = step_counts[c]
                if t >= 0 and not _table_truth(key, t, tcols, truth, truth_at):
                    continue
                if most_off >= 0 and ((key >> most_off) & most_mask) > most_max:
                    continue
                completions[r] += w
                key = _lite(key, lite_off, lite_mask, lite_t, lite_bits)
                ph[pidx[i] * nhcp + ((key >> hcp_off) & hcp_mask)] += cnt * w
                if naux:
                    code = 0
                    for q in range(naux):
                        v = (key >> auxcols[q, 0]) & auxcols[q, 1]
                        code = code * (auxcols[q, 2] + 1) + (v if v < auxcols[q, 2] else auxcols[q, 2])
                    aux[code * nhcp + ((key >> hcp_off) & hcp_mask)] += cnt * w
    return pairs


cdef enum:  # the node types of a formula program (engine._program writes them)
    _AND = 0
    _OR = 1
    _NOT = 2
    _CMP = 3
    _PATTERN = 4
    _SHAPE = 5


cdef bint _holds(const int64_t *p, Py_ssize_t at, int64_t key, const int64_t *lens) noexcept nogil:
    """The truth of the node at ``at`` of program ``p`` on one packed state (see engine._program)."""
    cdef int64_t kind = p[at], end = p[at + 1], v, a, b, t
    cdef Py_ssize_t i, q, n
    cdef int64_t l[4]
    cdef int64_t s[4]
    if kind == _AND or kind == _OR:
        i = at + 2
        while i < end:
            if _holds(p, i, key, lens) != (kind == _AND):
                return kind == _OR
            i = p[i + 1]
        return kind == _AND
    if kind == _NOT:
        return not _holds(p, at + 2, key, lens)
    if kind == _CMP:  # const + sum of coef * column, compared with 0: op, const, n, (offset, mask, coef) * n
        v = p[at + 3]
        n = p[at + 4]
        for q in range(n):
            v += p[at + 7 + 3 * q] * ((key >> p[at + 5 + 3 * q]) & p[at + 6 + 3 * q])
        a = p[at + 2]
        if a == 0:
            return v >= 0
        if a == 1:
            return v <= 0
        if a == 2:
            return v == 0
        return v != 0
    for q in range(4):
        l[q] = (key >> lens[2 * q]) & lens[2 * q + 1]
    n = p[at + 2]
    if kind == _PATTERN:  # n patterns of four lengths, -1 for any
        for i in range(n):
            for q in range(4):
                t = p[at + 3 + 4 * i + q]
                if t >= 0 and t != l[q]:
                    break
            else:
                return True
        return False
    # _SHAPE: n shapes of four lengths, longest first
    for q in range(4):
        s[q] = l[q]
    for q in range(1, 4):  # the four lengths, longest first
        a = s[q]
        b = q
        while b > 0 and s[b - 1] < a:
            s[b] = s[b - 1]
            b -= 1
        s[b] = a
    for i in range(n):
        for q in range(4):
            if p[at + 3 + 4 * i + q] != s[q]:
                break
        else:
            return True
    return False


def formula_truth(const int64_t[::1] program, const int64_t[::1] keys, const int64_t[::1] lens):
    """The truth of a formula program (engine._program) on each packed state of ``keys``;
    ``lens`` holds the four length columns' (offset, mask)."""
    cdef Py_ssize_t i, n = keys.shape[0]
    out = np.empty(n, np.bool_)
    cdef uint8_t[::1] o = out.view(np.uint8)
    with nogil:
        for i in range(n):
            o[i] = _holds(&program[0], 0, keys[i], &lens[0])
    return out


def holds(const int64_t[:, ::1] cls, const int64_t[:, ::1] contrib, int low, int64_t ones,
          const int64_t[:, ::1] rest, const uint8_t[::1] viable_code, const int64_t[::1] code_to_pat,
          const int64_t[::1] group_of, const int64_t[::1] kind, const uint8_t[::1] truth,
          const int64_t[::1] truth_at, const int64_t[:, ::1] tcols, const int64_t[::1] programs,
          const int64_t[::1] program_at, const int64_t[::1] lens):
    """engine.SeatTable.holds: the formula's truth on concrete hands, given as (n, 4) holding
    classes.  Each suit's class gives its contribution (``contrib[suit, class]``, -1 for a
    class the unseen cards cannot make), added to the packed state (brought back under the
    caps after each of the first three suits); a state of a pattern the table does not allow
    fails, else its pattern group decides (``kind``: -1 holds, -2 fails, -3 the compiled walk
    of the group's program at ``program_at``, else that truth table, as in last_suit)."""
    cdef Py_ssize_t n = cls.shape[0], i, si
    cdef int64_t key, c, code, g, t
    out = np.zeros(n, np.bool_)
    cdef uint8_t[::1] o = out.view(np.uint8)
    cdef bint bad
    with nogil:
        for i in range(n):
            key = 0
            bad = False
            for si in range(4):
                c = contrib[si, cls[i, si]]
                if c < 0:
                    bad = True
                    break
                key = key + c
                if si < 3:
                    key = _recap(key, ones, rest)
            if bad:
                continue
            code = key >> low
            if not viable_code[code]:
                continue
            g = group_of[code_to_pat[code]]
            t = kind[g]
            if t == -1:
                o[i] = 1
            elif t == -3:
                o[i] = _holds(&programs[program_at[g]], 0, key, &lens[0])
            elif t >= 0:
                o[i] = _table_truth(key, t, tcols, truth, truth_at)
    return out


cdef struct _Entry:
    int64_t col
    int64_t nxt
    double w


cdef int _by_state(const void *a, const void *b) noexcept nogil:
    cdef int64_t x = (<const int64_t *> a)[0], y = (<const int64_t *> b)[0]
    return (x > y) - (x < y)


cdef int _by_state_radix(int64_t *pairs, int64_t *spare, Py_ssize_t n) noexcept nogil:
    """Sort (state, draw) pairs by state (-1, a failed draw, first) as _by_state does, but by
    counting, 11 bits of the state at a time: the order within a state does not matter (each
    draw's pick reads only its own number).  Returns -1 (nothing done) for states past 2^33."""
    cdef int64_t count[2048]
    cdef int64_t most = 0, key, at, total
    cdef Py_ssize_t i, d
    cdef int shift
    cdef int64_t *src = pairs
    cdef int64_t *dst = spare
    cdef int64_t *swap
    if n == 0:
        return 0
    for i in range(n):
        if pairs[2 * i] + 1 > most:
            most = pairs[2 * i] + 1
    if most >= (<int64_t> 1) << 33:
        return -1
    shift = 0
    while shift == 0 or (most >> shift) > 0:
        for d in range(2048):
            count[d] = 0
        for i in range(n):
            count[((src[2 * i] + 1) >> shift) & 2047] += 1
        total = 0
        for d in range(2048):
            at = count[d]
            count[d] = total
            total += at
        for i in range(n):
            key = ((src[2 * i] + 1) >> shift) & 2047
            dst[2 * count[key]] = src[2 * i]
            dst[2 * count[key] + 1] = src[2 * i + 1]
            count[key] += 1
        swap = src
        src = dst
        dst = swap
        shift += 11
    if src != pairs:
        for i in range(2 * n):
            pairs[i] = src[i]
    return 0


cdef int _by_col(const void *a, const void *b) noexcept nogil:
    cdef int64_t x = (<const _Entry *> a).col, y = (<const _Entry *> b).col
    return (x > y) - (x < y)


cdef bint _in_order(const _Entry *e, Py_ssize_t cnt) noexcept nogil:
    """Whether a state's entries are in order of contribution already."""
    cdef Py_ssize_t j
    for j in range(1, cnt):
        if e[j].col < e[j - 1].col:
            return False
    return True


cdef Py_ssize_t _running(_Entry *e, double *cum, Py_ssize_t cnt, double *tot) noexcept nogil:
    """A state's entries' running weights (``cum``, summed in order, as numpy sums them) and
    their total; returns the last entry of positive weight (-1: none)."""
    cdef double c = 0.0
    cdef Py_ssize_t j, last = -1
    for j in range(cnt):
        c += e[j].w
        cum[j] = c
        if e[j].w > 0:
            last = j
    tot[0] = c
    return last


cdef Py_ssize_t _pick(const double *cum, Py_ssize_t cnt, double tot, Py_ssize_t last, double row,
                      double u) noexcept nogil:
    """engine._pick_moves for one draw: the entry whose normalised running weight (plus the
    row's number, as numpy lays rows end to end) first passes row + u; past the row (a
    rounding at the very top), its last entry of positive weight.  The running weights do
    not decrease, so the first entry that passes is found by halving."""
    cdef double v = row + u
    cdef Py_ssize_t a = 0, b = cnt, m
    while a < b:  # the first j in [a, b) that passes, or b
        m = (a + b) // 2
        if ((cum[m] / tot) if tot > 0 else cum[m]) + row > v:
            b = m
        else:
            a = m + 1
    return a if a < cnt else last


def draw(Py_ssize_t n, const double[:, ::1] u, list levels, bint last_moves,
         const int64_t[::1] first3, const int64_t[::1] cols3, const double[::1] ways3, const int8_t[::1] hcp3,
         const double[::1] factor3,
         const int64_t[::1] keys3, int low, const int64_t[::1] step_keys3, const double[::1] step_counts3,
         const int64_t[::1] by_len3, const int64_t[::1] first_of_length,
         const uint8_t[::1] viable_code, const int64_t[::1] code_to_pat, const double[::1] pat_ok, bint pat_weights,
         const int64_t[::1] group_of, const int64_t[::1] kind, const uint8_t[::1] truth,
         const int64_t[::1] truth_at, const int64_t[:, ::1] tcols, const int64_t[::1] programs,
         const int64_t[::1] program_at, const int64_t[::1] lens,
         int hcp_off, int64_t hcp_mask, const double[::1] hcp_ok, int most_off, int64_t most_mask, int64_t most_max):
    """engine.SeatTable.sample's walk through the suits (before each suit's holding class is
    chosen): n draws, each suit's contribution chosen among its state's moves by the weights
    numpy gives them, with the same uniform numbers ``u`` (one row a suit) and the same
    arithmetic, so that the draws are those of the numpy walk.

    ``levels``: for the first three suits, (first move of each state, the moves' contributions
    and next states, the next level's completions, the suit's holding counts); a state's moves
    are weighed in order of contribution, as numpy orders them.  The last suit by its kept
    moves (``last_moves``: ``first3``, ``cols3``, ``ways3``, ``hcp3``, and ``factor3`` per
    state, empty for none) or, else, by evaluating
    the formula on the states drawn (as engine._blocks, with the tables and programs of
    holds).  ``pat_ok`` (empty: none) keeps patterns of positive weight, and weighs them
    where ``pat_weights``; ``hcp_ok`` (empty: none) weighs each HCP total.  Returns the
    contributions chosen, (n, 4), and the third-suit states drawn."""
    cdef Py_ssize_t i, j, k, g0, g1, cnt, row, q
    cdef int64_t s, key, code, pat, grp, t, c, n3
    cdef double w
    cdef bint ok
    chosen_a = np.zeros((n, 4), np.int64)
    cdef int64_t[:, ::1] chosen = chosen_a
    state_a = np.zeros(n, np.int64)
    cdef int64_t[::1] state = state_a
    pairs_a = np.empty((n, 2), np.int64)
    spare_a = np.empty((n, 2), np.int64)
    cdef int64_t[:, ::1] pairs = pairs_a, spare = spare_a
    cdef const int64_t[::1] first
    cdef const int32_t[::1] cols
    cdef const int32_t[::1] nxt
    cdef const double[::1] back
    cdef const double[::1] counts
    cdef _Entry *e = NULL
    cdef double *cum = NULL
    cdef double tot
    cdef Py_ssize_t cap = 0, last
    cdef Py_ssize_t drawn3 = 0
    try:
        for k in range(4):
            if k < 3:
                first, cols, nxt, back, counts = levels[k]
            with nogil:
                # the draws by state: each state's row is its place among the distinct states
                for i in range(n):
                    pairs[i, 0] = state[i]
                    pairs[i, 1] = i
                if _by_state_radix(&pairs[0, 0], &spare[0, 0], n) != 0:
                    qsort(&pairs[0, 0], n, 2 * sizeof(int64_t), _by_state)
                row = -1
                g0 = 0
                while g0 < n:
                    s = pairs[g0, 0]
                    g1 = g0
                    while g1 < n and pairs[g1, 0] == s:
                        g1 += 1
                    row += 1
                    # the state's entries: (contribution, next state, weight), by contribution
                    if k < 3:
                        cnt = first[s + 1] - first[s]
                    elif last_moves:
                        cnt = first3[s + 1] - first3[s]
                    else:
                        n3 = 13 - _lengths_used((keys3[s] >> low) & 0xFFFF)
                        cnt = first_of_length[n3 + 1] - first_of_length[n3]
                    if cnt > cap:
                        free(e)
                        free(cum)
                        cap = 2 * cnt
                        e = <_Entry *> malloc(cap * sizeof(_Entry))
                        cum = <double *> malloc(cap * sizeof(double))
                        if e == NULL or cum == NULL:
                            break
                    if k < 3:
                        for j in range(cnt):
                            q = first[s] + j
                            e[j].col = cols[q]
                            e[j].nxt = nxt[q]
                            e[j].w = back[nxt[q]] * counts[cols[q]]
                    elif last_moves:
                        for j in range(cnt):
                            q = first3[s] + j
                            e[j].col = cols3[q]
                            w = ways3[q]
                            if hcp_ok.shape[0]:
                                w = w * hcp_ok[hcp3[q]]
                            if factor3.shape[0]:
                                w = w * factor3[s]
                            e[j].w = w
                    else:
                        key = keys3[s]
                        code = (key >> low) + n3
                        ok = viable_code[code] != 0
                        pat = code_to_pat[code]
                        if ok and pat_ok.shape[0]:
                            ok = pat_ok[pat] > 0
                        grp = group_of[pat]
                        t = kind[grp]
                        if not ok or t == -2:
                            cnt = 0
                        for j in range(cnt):
                            c = by_len3[first_of_length[n3] + j]
                            key = keys3[s] + step_keys3[c]
                            w = step_counts3[c]
                            if t == -3:
                                if not _holds(&programs[program_at[grp]], 0, key, &lens[0]):
                                    w = w * 0.0
                            elif t >= 0:
                                w = w * _table_truth(key, t, tcols, truth, truth_at)
                            if hcp_ok.shape[0]:
                                w = w * hcp_ok[(key >> hcp_off) & hcp_mask]
                            if most_off >= 0:
                                w = w * (((key >> most_off) & most_mask) <= most_max)
                            if pat_weights:
                                w = w * pat_ok[pat]
                            e[j].col = c
                            e[j].w = w
                    if (k < 3 or last_moves) and not _in_order(e, cnt):
                        # numpy weighs a state's moves in order of contribution (as they mostly come)
                        qsort(e, cnt, sizeof(_Entry), _by_col)
                    last = _running(e, cum, cnt, &tot)
                    for i in range(g0, g1):
                        j = _pick(cum, cnt, tot, last, <double> row, u[k, pairs[i, 1]])
                        chosen[pairs[i, 1], k] = e[j].col if j >= 0 else -1
                        if k < 3:
                            state[pairs[i, 1]] = e[j].nxt if j >= 0 else -1
                    g0 = g1
                if k == 3:
                    drawn3 = row + 1
            if (e == NULL or cum == NULL) and cap > 0:
                raise MemoryError
    finally:
        free(e)
        free(cum)
    return chosen_a, drawn3


def grid_add(const int64_t[::1] cells, const int64_t[::1] lo, const int64_t[::1] hi, const int64_t[::1] u,
             const int64_t[:, ::1] pat_lengths, const int64_t[::1] pat_cells, const int64_t[::1] plo,
             const int64_t[::1] phi, int64_t[::1] out_lo, int64_t[::1] out_hi):
    """bounds._Grid.add: for each reached cell of summed lengths (``cells``, as 14-ary numbers
    with their least and most summed HCP ``lo``, ``hi``) and each pattern that fits in the
    unseen lengths ``u`` left (``pat_lengths``, its cell offset ``pat_cells``, its least and most
    HCP), the cell reached: its least and most summed HCP lowered and raised into ``out_lo``,
    ``out_hi``."""
    cdef Py_ssize_t nc = cells.shape[0], npat = pat_lengths.shape[0], i, p
    cdef int64_t c, r0, r1, r2, r3, dst, v
    with nogil:
        for i in range(nc):
            c = cells[i]
            r0 = u[0] - (c // 2744) % 14
            r1 = u[1] - (c // 196) % 14
            r2 = u[2] - (c // 14) % 14
            r3 = u[3] - c % 14
            for p in range(npat):
                if pat_lengths[p, 0] > r0 or pat_lengths[p, 1] > r1 or pat_lengths[p, 2] > r2 or pat_lengths[p, 3] > r3:
                    continue
                dst = c + pat_cells[p]
                v = lo[c] + plo[p]
                if v < out_lo[dst]:
                    out_lo[dst] = v
                v = hi[c] + phi[p]
                if v > out_hi[dst]:
                    out_hi[dst] = v


cdef void _share_out(int8_t *row, const uint8_t *pool, uint8_t *take, const int64_t *need, bint low, int8_t k,
                     const int64_t *seats, Py_ssize_t ns) noexcept nogil:
    """A deal's pooled cards (``pool``) dealt anew in ``row``: seat k takes the cards marked in
    ``take`` and, suit by suit, ``need`` more of its other pooled cards, the lowest (``low``)
    or highest first; the pooled cards left go to ``seats``, 13 each in card order (the last
    taking any beyond).  What bounds._give and reshare's share make of a deal."""
    cdef Py_ssize_t s, r, c, nth = 0
    cdef int64_t left
    for s in range(4):
        left = need[s]
        r = 0
        while left > 0 and r < 13:
            c = s * 13 + (12 - r if low else r)
            if pool[c] and not take[c]:
                take[c] = 1
                left -= 1
            r += 1
    for c in range(52):
        if take[c]:
            row[c] = k
        elif pool[c]:
            row[c] = <int8_t> seats[nth // 13 if nth // 13 < ns else ns - 1]
            nth += 1


def share_rows(const int8_t[:, ::1] owner, const int64_t[::1] takers, int k, const int64_t[:, ::1] pats,
               int per, bint keep, bint mine):
    """bounds.reshare's share for one way of keeping: seat k and the ``takers`` pool their cards
    in each deal (``owner``, (n, 52) seats); for each pattern (``pats`` rows, in order) the
    first ``per`` deals whose pool has room for it (``mine``: k takes the pattern; else the
    takers do, k the rest), each dealt anew: k keeps its honours (``keep``) and takes the
    lowest other pooled cards of each suit up to its lengths, the takers the rest, 13 each in
    card order.  Returns the new deals and the pattern (row of ``pats``) of each, as
    bounds._give and share's choice of deals make them."""
    cdef Py_ssize_t n = owner.shape[0], m = pats.shape[0], nt = takers.shape[0], p, d, s, r, c, cnt, got = 0
    cdef int64_t target
    lengths_a = np.zeros((n, 4), np.int64)
    kept_a = np.zeros((n, 4), np.int64)
    cdef int64_t[:, ::1] lengths = lengths_a, kept = kept_a
    cdef uint8_t inpool[128]
    cdef bint can
    for c in range(128):
        inpool[c] = 0
    inpool[k] = 1
    for c in range(nt):
        inpool[takers[c]] = 1
    with nogil:
        for d in range(n):
            for c in range(52):
                if owner[d, c] >= 0 and inpool[owner[d, c]]:
                    lengths[d, c // 13] += 1
                if keep and owner[d, c] == k and c % 13 < 4:
                    kept[d, c // 13] += 1
    pick_a = np.empty((m * per, 2), np.int64)
    cdef int64_t[:, ::1] pick = pick_a
    with nogil:
        for p in range(m):
            cnt = 0
            for d in range(n):
                can = True
                for s in range(4):
                    if mine:
                        if lengths[d, s] < pats[p, s] or (keep and pats[p, s] < kept[d, s]):
                            can = False
                    elif lengths[d, s] - kept[d, s] < pats[p, s]:
                        can = False
                if not can:
                    continue
                pick[got, 0] = p
                pick[got, 1] = d
                got += 1
                cnt += 1
                if cnt == per:
                    break
    rows_a = np.empty((got, 52), np.int8)
    cdef int8_t[:, ::1] rows = rows_a
    cdef uint8_t take[52]
    cdef uint8_t pool[52]
    cdef int64_t need[4]
    with nogil:
        for r in range(got):
            p = pick[r, 0]
            d = pick[r, 1]
            for c in range(52):
                rows[r, c] = owner[d, c]
                pool[c] = owner[d, c] >= 0 and inpool[owner[d, c]]
                take[c] = keep and owner[d, c] == k and c % 13 < 4  # its honours, kept
            for s in range(4):
                target = pats[p, s] if mine else lengths[d, s] - pats[p, s]
                need[s] = target - (kept[d, s] if keep else 0)
            _share_out(&rows[r, 0], pool, take, need, True, <int8_t> k, &takers[0], nt)
    return rows_a, pick_a[:got, 0].copy()


def fit_everywhere(const uint8_t[:, :, :, ::1] fits, const int64_t[::1] spots, const int64_t[:, ::1] lo,
                   const int64_t[:, ::1] hi, const int64_t[::1] most):
    """bounds._fit_everywhere: for each row, whether some way v of holding small cards with
    lo <= v <= hi (suit by suit, at most 4 above lo) and ``most`` of them in all exists, and
    ``fits`` holds at spots - v for every such way."""
    cdef Py_ssize_t n = lo.shape[0], i
    cdef int64_t d, o0, o1, o2, o3, v0, v1, v2, v3
    cdef bint any_valid, all_fit
    out = np.zeros(n, np.bool_)
    cdef uint8_t[::1] o = out.view(np.uint8)
    with nogil:
        for i in range(n):
            d = most[i] - lo[i, 0] - lo[i, 1] - lo[i, 2] - lo[i, 3]
            if d < 0 or d > 16:
                continue
            any_valid = False
            all_fit = True
            for o0 in range(5):
                if not all_fit:
                    break
                for o1 in range(5):
                    if not all_fit:
                        break
                    for o2 in range(5):
                        o3 = d - o0 - o1 - o2
                        if o3 < 0 or o3 > 4:
                            continue
                        v0, v1, v2, v3 = lo[i, 0] + o0, lo[i, 1] + o1, lo[i, 2] + o2, lo[i, 3] + o3
                        if v0 > hi[i, 0] or v1 > hi[i, 1] or v2 > hi[i, 2] or v3 > hi[i, 3]:
                            continue
                        any_valid = True
                        if not fits[spots[0] - v0, spots[1] - v1, spots[2] - v2, spots[3] - v3]:
                            all_fit = False
                            break
            o[i] = any_valid and all_fit
    return out


def disjoint_pairs(const uint64_t[::1] a, const uint64_t[::1] b):
    """Every pair (i, j) with a[i] and b[j] sharing no bit (two hands' 52-card masks sharing no
    card), by i then j: as np.nonzero of the (len(a), len(b)) test."""
    cdef Py_ssize_t na = a.shape[0], nb = b.shape[0], i, j, got = 0, cap = 1024
    rows_a = np.empty(cap, np.int64)
    cols_a = np.empty(cap, np.int64)
    cdef int64_t[::1] rows = rows_a, cols = cols_a
    for i in range(na):
        for j in range(nb):
            if a[i] & b[j]:
                continue
            if got == cap:
                cap *= 2
                rows_a = np.resize(rows_a, cap)
                cols_a = np.resize(cols_a, cap)
                rows, cols = rows_a, cols_a
            rows[got] = i
            cols[got] = j
            got += 1
    return rows_a[:got], cols_a[:got]


def grid_add_at(const int64_t[::1] cells, const int64_t[::1] lo, const int64_t[::1] hi,
                const int64_t[:, ::1] pat_lengths, const int64_t[::1] pat_cells, const int64_t[::1] plo,
                const int64_t[::1] phi, int64_t inf):
    """bounds._Grid.add_at: at each cell of ``cells`` (summed lengths, as 14-ary numbers), the
    least and most summed HCP that one more seat's pattern (rows of ``pat_lengths``, fitting in
    the cell) adds to a reached cell of the grid (``lo`` < inf) that it completes."""
    cdef Py_ssize_t nc = cells.shape[0], npat = pat_lengths.shape[0], i, p
    cdef int64_t c, w0, w1, w2, w3, src, v, best_lo, best_hi
    glo = np.empty(nc, np.int64)
    ghi = np.empty(nc, np.int64)
    cdef int64_t[::1] out_lo = glo, out_hi = ghi
    with nogil:
        for i in range(nc):
            c = cells[i]
            w0, w1, w2, w3 = (c // 2744) % 14, (c // 196) % 14, (c // 14) % 14, c % 14
            best_lo, best_hi = inf, -inf
            for p in range(npat):
                if pat_lengths[p, 0] > w0 or pat_lengths[p, 1] > w1 or pat_lengths[p, 2] > w2 or pat_lengths[p, 3] > w3:
                    continue
                src = c - pat_cells[p]
                if lo[src] >= inf:
                    continue
                v = lo[src] + plo[p]
                if v < best_lo:
                    best_lo = v
                v = hi[src] + phi[p]
                if v > best_hi:
                    best_hi = v
            out_lo[i] = best_lo
            out_hi[i] = best_hi
    return glo, ghi


def classes(const int8_t[:, ::1] owner, int seat):
    """joint.classes_of: each deal's (of an (n, 52) array of seats) holding class of one seat
    in each suit, its length times 64 plus the mask of its six top cards held (ace bit 0)."""
    cdef Py_ssize_t n = owner.shape[0], i, si, r
    out = np.zeros((n, 4), np.int64)
    cdef int64_t[:, ::1] o = out
    cdef int64_t length, mask
    with nogil:
        for i in range(n):
            for si in range(4):
                length = 0
                mask = 0
                for r in range(13):
                    if owner[i, 13 * si + r] == seat:
                        length += 1
                        if r < 6:
                            mask |= 1 << r
                o[i, si] = length * 64 + mask
    return out


def deal_cards(const int8_t[:, ::1] owner):
    """Per deal (rows of ``owner``, the seat of each card), seat and suit: how many of the
    seat's cards are worth 0, 1, 2, 3 and 4 HCP, as an (n, 4, 4, 5) array (bounds' witness)."""
    cdef Py_ssize_t n = owner.shape[0], i, c
    cdef int8_t k
    out = np.zeros((n, 4, 4, 5), np.int64)
    cdef int64_t[:, :, :, ::1] o = out
    cdef int64_t worth[13]
    for c in range(13):
        worth[c] = 4 - c if c < 4 else 0
    with nogil:
        for i in range(n):
            for c in range(52):
                k = owner[i, c]
                if k >= 0:
                    o[i, k, c // 13, worth[c % 13]] += 1
    return out


def back_level(const int32_t[::1] rows, const int32_t[::1] cols, const int32_t[::1] nxt, const double[::1] after,
               const double[::1] counts, Py_ssize_t n):
    """engine.SeatTable.backward's step back over a level's moves: each state's ways to
    complete, the sum over its moves of the next state's ways times the move's holdings
    (as np.bincount adds them, move by move)."""
    out = np.zeros(n, np.float64)
    cdef double[::1] o = out
    cdef Py_ssize_t m = rows.shape[0], i
    with nogil:
        for i in range(m):
            o[rows[i]] += after[nxt[i]] * counts[cols[i]]
    return out


def swap_candidates(const int64_t[:, ::1] held_x, const int64_t[:, ::1] held_y, const int64_t[::1] hcp_x,
                    const int64_t[::1] hcp_y, const int64_t[::1] at_x, const int64_t[::1] at_y,
                    const int64_t[::1] type_hcp, const int64_t[::1] shift, const int64_t[::1] pat_of,
                    const uint8_t[::1] want_x, const uint8_t[::1] want_y, bint pat_x, bint pat_y,
                    bint hcp_wx, bint hcp_wy, int64_t lo_x, int64_t hi_x, int64_t lo_y, int64_t hi_y):
    """bounds.swap_moves' candidates between seats x and y: in each deal every card type x
    holds (``held_x`` rows, -1 for none) given for every other type y holds, in that order;
    those that give either seat a pattern it wants (``want_*`` by pattern, where ``pat_*``) or
    HCP below ``lo_*`` or above ``hi_*`` (where ``hcp_w*``).  Returns the deal, x's type and
    y's type of each such swap, and the number of swaps looked at."""
    cdef Py_ssize_t n = held_x.shape[0], i, p, q, got = 0, looked = 0, cap = 1024
    cdef int64_t a, b, h
    cdef bint good
    rows_a = np.empty(cap, np.int64)
    ta_a = np.empty(cap, np.int64)
    tb_a = np.empty(cap, np.int64)
    cdef int64_t[::1] rows = rows_a, ta = ta_a, tb = tb_a
    for i in range(n):
        for p in range(13):
            a = held_x[i, p]
            if a < 0:
                continue
            for q in range(13):
                b = held_y[i, q]
                if b < 0 or a == b:
                    continue
                looked += 1
                good = False
                if hcp_wx:
                    h = hcp_x[i] - type_hcp[a] + type_hcp[b]
                    good = h < lo_x or h > hi_x
                if not good and pat_x:
                    good = want_x[pat_of[at_x[i] - shift[a] + shift[b]]] != 0
                if not good and hcp_wy:
                    h = hcp_y[i] - type_hcp[b] + type_hcp[a]
                    good = h < lo_y or h > hi_y
                if not good and pat_y:
                    good = want_y[pat_of[at_y[i] - shift[b] + shift[a]]] != 0
                if not good:
                    continue
                if got == cap:
                    cap *= 2
                    rows_a = np.resize(rows_a, cap)
                    ta_a = np.resize(ta_a, cap)
                    tb_a = np.resize(tb_a, cap)
                    rows, ta, tb = rows_a, ta_a, tb_a
                rows[got] = i
                ta[got] = a
                tb[got] = b
                got += 1
    return rows_a[:got], ta_a[:got], tb_a[:got], looked


cdef inline int64_t _thirteen(const int64_t *v, bint top) noexcept nogil:
    """bounds._take for 13 cards: the HCP of the 13 highest (``top``) or lowest of cards
    counted by worth (``v``: how many are worth 0, 1, 2, 3 and 4)."""
    cdef int64_t left = 13, out = 0, t
    cdef int x, w
    for x in range(5):
        w = 4 - x if top else x
        t = v[w] if v[w] < left else left
        out += t * w
        left -= t
    return out


def deal_stats(const int8_t[:, ::1] owner, const uint8_t[::1] free):
    """bounds.deal_stats: per deal (rows of ``owner``, the seat of each card), each seat's suit
    lengths as a 14-ary number and its HCP; and the seats marked in ``free`` pooled: their
    summed lengths as a 14-ary number, and the HCP of the 13 lowest and of the 13 highest of
    their cards."""
    cdef Py_ssize_t n = owner.shape[0], i, c
    cdef int8_t k
    codes_a = np.zeros((n, 4), np.int64)
    points_a = np.zeros((n, 4), np.int64)
    pooled_a = np.zeros(n, np.int64)
    low_a = np.zeros(n, np.int64)
    high_a = np.zeros(n, np.int64)
    cdef int64_t[:, ::1] codes = codes_a, points = points_a
    cdef int64_t[::1] pooled = pooled_a, low = low_a, high = high_a
    cdef int64_t worth[13]
    cdef int64_t place[4]
    cdef int64_t v[5]
    for c in range(13):
        worth[c] = 4 - c if c < 4 else 0
    place[0], place[1], place[2], place[3] = 2744, 196, 14, 1
    with nogil:
        for i in range(n):
            v[0] = v[1] = v[2] = v[3] = v[4] = 0
            for c in range(52):
                k = owner[i, c]
                if k < 0:
                    continue
                codes[i, k] += place[c // 13]
                points[i, k] += worth[c % 13]
                if free[k]:
                    pooled[i] += place[c // 13]
                    v[worth[c % 13]] += 1
            low[i] = _thirteen(v, False)
            high[i] = _thirteen(v, True)
    return codes_a, points_a, pooled_a, low_a, high_a


ctypedef fused _cell:
    uint8_t
    int64_t


def closure4(_cell[::1] o, const int64_t[::1] shape, bint above):
    """In place, on a 4-dimensional grid (flat, of that shape): each cell takes in every cell at
    or below it (``above``: at or above) in every suit, by OR for booleans as uint8
    (bounds._at_or_below, _at_or_above) and by the least for int64 (bounds._Grid.below)."""
    cdef Py_ssize_t n = o.shape[0], outer, inner, dim, a, d, x, base, step
    cdef int ax
    with nogil:
        outer = 1
        for ax in range(4):  # along each axis, each cell takes in its neighbour below (above)
            dim = shape[ax]
            inner = n // (outer * dim) if outer * dim else 0
            step = -inner if above else inner
            for a in range(outer):
                for d in range(1, dim):
                    base = (a * dim + (dim - 1 - d if above else d)) * inner
                    for x in range(inner):
                        if _cell is uint8_t:
                            o[base + x] |= o[base - step + x]
                        else:
                            o[base + x] = min(o[base + x], o[base - step + x])
            outer *= dim


def plus_grid(const uint8_t[::1] reach, const int64_t[::1] shape, const int64_t[:, ::1] f):
    """bounds._plus on a 4-dimensional grid of booleans (flat, of that shape): every marked
    cell plus every row of ``f``, the sums within the grid marked."""
    cdef Py_ssize_t n = reach.shape[0], m = f.shape[0], i, r
    cdef int64_t d0 = shape[0], d1 = shape[1], d2 = shape[2], d3 = shape[3]
    cdef int64_t c0, c1, c2, c3, a0, a1, a2, a3
    out = np.zeros(n, np.uint8)
    cdef uint8_t[::1] o = out
    with nogil:
        for i in range(n):
            if not reach[i]:
                continue
            c3 = i % d3
            c2 = (i // d3) % d2
            c1 = (i // (d3 * d2)) % d1
            c0 = i // (d3 * d2 * d1)
            for r in range(m):
                a0 = c0 + f[r, 0]
                a1 = c1 + f[r, 1]
                a2 = c2 + f[r, 2]
                a3 = c3 + f[r, 3]
                if a0 < d0 and a1 < d1 and a2 < d2 and a3 < d3:
                    o[((a0 * d1 + a1) * d2 + a2) * d3 + a3] = 1
    return out.view(np.bool_)


def room_left(const int64_t[:, ::1] room, const int64_t[:, ::1] f, const uint8_t[::1] below,
              const int64_t[::1] shape):
    """bounds._room_for's few rows: for each row of ``room``, whether some row of ``f`` fits in
    it and leaves a cell marked in ``below`` (a flat 4-dimensional grid of that shape)."""
    cdef Py_ssize_t n = room.shape[0], m = f.shape[0], i, r
    cdef int64_t d0 = shape[0], d1 = shape[1], d2 = shape[2], d3 = shape[3], a0, a1, a2, a3
    out = np.zeros(n, np.uint8)
    cdef uint8_t[::1] o = out
    with nogil:
        for i in range(n):
            for r in range(m):
                a0 = room[i, 0] - f[r, 0]
                a1 = room[i, 1] - f[r, 1]
                a2 = room[i, 2] - f[r, 2]
                a3 = room[i, 3] - f[r, 3]
                if not (0 <= a0 < d0 and 0 <= a1 < d1 and 0 <= a2 < d2 and 0 <= a3 < d3):
                    continue
                if below[((a0 * d1 + a1) * d2 + a2) * d3 + a3]:
                    o[i] = 1
                    break
    return out.view(np.bool_)


def give(const int8_t[:, ::1] rows, const uint8_t[:, ::1] pool, int8_t k, const int64_t[::1] free,
         const int64_t[:, ::1] lengths, bint low, const uint8_t[:, ::1] keep):
    """bounds._give: each row's pooled cards dealt anew, seat k taking the cards of ``keep``
    (no rows: none) and then, suit by suit, the lowest (``low``) or highest of its other pooled
    cards up to its length there; the free seats the rest, 13 each in card order (the last
    taking any beyond).  Returns the new rows."""
    cdef Py_ssize_t n = rows.shape[0], nf = free.shape[0], i, si, c
    cdef bint keeping = keep.shape[0] > 0
    out = np.array(rows, np.int8)
    cdef int8_t[:, ::1] o = out
    cdef uint8_t take[52]
    cdef int64_t need[4]
    with nogil:
        for i in range(n):
            for si in range(4):
                need[si] = lengths[i, si]
            for c in range(52):
                take[c] = keeping and keep[i, c]
                if take[c]:
                    need[c // 13] -= 1
            _share_out(&o[i, 0], &pool[i, 0], take, need, low, k, &free[0], nf)
    return out


def held_types(const int8_t[:, ::1] owner, int8_t k):
    """bounds.swap_moves' card types of seat k: per deal, which of the 28 types (the A K Q J
    T 9 of each suit, and a small card of it) it holds, those types in order, padded with
    -1 to 13, and its HCP."""
    cdef Py_ssize_t n = owner.shape[0], i, si, r, t, m
    types_a = np.zeros((n, 28), np.uint8)
    held_a = np.full((n, 13), -1, np.int64)
    hcp_a = np.zeros(n, np.int64)
    cdef uint8_t[:, ::1] ty = types_a
    cdef int64_t[:, ::1] held = held_a
    cdef int64_t[::1] hcp = hcp_a
    with nogil:
        for i in range(n):
            for si in range(4):
                for r in range(13):
                    if owner[i, si * 13 + r] == k:
                        ty[i, si * 7 + (r if r < 6 else 6)] = 1
                        if r < 4:
                            hcp[i] += 4 - r
            m = 0
            for t in range(28):
                if ty[i, t] and m < 13:
                    held[i, m] = t
                    m += 1
    return types_a.view(np.bool_), held_a, hcp_a


def place_suit(int8_t[:, ::1] owner, const int64_t[::1] length, const int64_t[::1] mask, int si,
               const double[:, ::1] keys, const int64_t[::1] cols, int8_t seat):
    """joint.place_classes for one suit: in each row, the seat takes the top cards of its
    class's mask and, of the suit's small cards ``cols`` ordered by their random keys (numpy's
    argsort), the one at sorted place j where the index sorted there is below the row's count
    of small cards."""
    cdef Py_ssize_t n = owner.shape[0], m = cols.shape[0], i, j, a, b
    cdef int64_t idx[13]
    cdef int64_t x, count, bits
    with nogil:
        for i in range(n):
            bits = mask[i]
            count = length[i]
            for j in range(6):
                if (bits >> j) & 1:
                    owner[i, si * 13 + j] = seat
                    count -= 1
            if m == 0:
                continue
            for j in range(m):
                idx[j] = j
            for a in range(1, m):  # insertion sort of at most seven keys
                x = idx[a]
                b = a - 1
                while b >= 0 and keys[i, idx[b]] > keys[i, x]:
                    idx[b + 1] = idx[b]
                    b -= 1
                idx[b + 1] = x
            for j in range(m):
                if idx[j] < count:
                    owner[i, cols[j]] = seat
