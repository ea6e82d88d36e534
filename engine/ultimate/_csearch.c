/* The compiled hot loop of ultimate tic-tac-toe: perft, the random playout, and the
 * whole Monte Carlo tree search (engine/ultimate/mcts.py is the same search in Python,
 * kept as the fallback when this module is not built).
 *
 * Why C: pure Python runs 5 k random playouts/s, and its tree alone (with free playouts)
 * 7 k iterations/s, so hard's half second is 2.5 k iterations against a reference that
 * plays 10 k playouts a move; no numpy form of one sequential playout is faster.
 *
 * A position is two sides' marks per small board (9-bit masks), the small boards each
 * side has won, the boards decided (won or full), the forced board (-1 for any) and the
 * side to move. A set of cells (``Cells``) is 81 bits in two words. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FULL9 511u
#define UNKNOWN 2
#define MAX_PATH 96
#define MAX_NODES (1 << 22) /* 4 M nodes of 40 bytes: a search stops when it is full */
#define CHECK_EVERY 64

static uint8_t WINS[512], POP[512], KTH[512][9];
static uint16_t COMPLETING[512];
static const unsigned LINES[8] = {7, 56, 448, 73, 146, 292, 273, 84};

static void init_tables(void) {
    for (unsigned m = 0; m < 512; m++) {
        unsigned k = 0, completing = 0;
        for (unsigned i = 0; i < 9; i++)
            if (m >> i & 1) KTH[m][k++] = (uint8_t)i;
        POP[m] = (uint8_t)k;
        for (int l = 0; l < 8; l++) {
            if ((m & LINES[l]) == LINES[l]) WINS[m] = 1;
            if (__builtin_popcount(m & LINES[l]) == 2) completing |= LINES[l] & ~m;
        }
        COMPLETING[m] = (uint16_t)(completing & FULL9);
    }
}

typedef struct {
    uint16_t m[2][9];
    uint16_t won[2];
    uint16_t done;
    int8_t forced;
    int8_t turn;
} Pos;

typedef struct {
    uint64_t lo; /* cells 0-63 */
    uint32_t hi; /* cells 64-80 */
} Cells;

/* The move: engine/ultimate/transition.py's place(), the one Python copy (the tests check
 * both give the same playouts and trees); 1 when it won the game. */
static inline int pos_play(Pos *p, int cell) {
    int b = cell / 9, s = cell % 9, t = p->turn, won_game = 0;
    unsigned mine = p->m[t][b] | 1u << s;
    p->m[t][b] = (uint16_t)mine;
    if (WINS[mine]) {
        p->won[t] |= (uint16_t)(1u << b);
        p->done |= (uint16_t)(1u << b);
        won_game = WINS[p->won[t]];
    } else if ((mine | p->m[t ^ 1][b]) == FULL9) {
        p->done |= (uint16_t)(1u << b);
    }
    p->forced = (int8_t)((p->done >> s & 1) ? -1 : s);
    p->turn = (int8_t)(t ^ 1);
    return won_game;
}

static inline void cells_add(Cells *c, int b, uint64_t squares) {
    int shift = 9 * b;
    if (shift + 9 <= 64) {
        c->lo |= squares << shift;
    } else if (shift >= 64) {
        c->hi |= (uint32_t)(squares << (shift - 64));
    } else {
        c->lo |= squares << shift;
        c->hi |= (uint32_t)(squares >> (64 - shift));
    }
}

static Cells legal(const Pos *p) {
    Cells c = {0, 0};
    if (WINS[p->won[p->turn ^ 1]]) return c;
    if (p->forced >= 0) {
        int b = p->forced;
        cells_add(&c, b, FULL9 & ~(unsigned)(p->m[0][b] | p->m[1][b]));
        return c;
    }
    for (int b = 0; b < 9; b++)
        if (!(p->done >> b & 1)) cells_add(&c, b, FULL9 & ~(unsigned)(p->m[0][b] | p->m[1][b]));
    return c;
}

static inline int cells_count(Cells c) {
    return __builtin_popcountll(c.lo) + __builtin_popcount(c.hi);
}

static inline int cells_kth(Cells c, int k) {
    int n = __builtin_popcountll(c.lo);
    if (k < n) {
        uint64_t x = c.lo;
        while (k--) x &= x - 1;
        return __builtin_ctzll(x);
    }
    k -= n;
    uint32_t x = c.hi;
    while (k--) x &= x - 1;
    return 64 + __builtin_ctz(x);
}

static inline void cells_remove(Cells *c, int cell) {
    if (cell < 64) c->lo &= ~(1ull << cell);
    else c->hi &= ~(1u << (cell - 64));
}

/* Random numbers in [0, 1): a Python callable (so a playout here equals fast.playout for
 * the same ``random``), or xorshift64* inside the search, which runs without the GIL. */
typedef struct {
    PyObject *callable;
    uint64_t state;
    int failed;
} Rng;

static inline double rng_next(Rng *r) {
    if (r->callable != NULL) {
        PyObject *v = PyObject_CallNoArgs(r->callable);
        if (v == NULL) {
            r->failed = 1;
            return 0.0;
        }
        double d = PyFloat_AsDouble(v);
        Py_DECREF(v);
        if (d == -1.0 && PyErr_Occurred()) r->failed = 1;
        return d < 0.0 || d >= 1.0 ? 0.0 : d;
    }
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* fast.playout: random moves to the end; 1 if the side to move at the start wins, 0 if
 * it loses, 0.5 a draw, -1 when the callable failed. ``decisive``: a side that can win
 * the game with its move does. (Heavier playouts, taking a small board when possible and
 * else avoiding a send to a free move, measured weaker: 14.5/40 at equal iterations.) */
static double playout(Pos *p, Rng *r, int decisive) {
    int start = p->turn;
    for (;;) {
        int t = p->turn, b = 0, s = 0;
        const uint16_t *me = p->m[t], *them = p->m[t ^ 1];
        if (p->forced >= 0) {
            b = p->forced;
            unsigned empty = FULL9 & ~(unsigned)(me[b] | them[b]);
            if (decisive && (COMPLETING[p->won[t]] >> b & 1) && (COMPLETING[me[b]] & empty))
                return t == start ? 1.0 : 0.0;
            double x = rng_next(r);
            if (r->failed) return -1.0;
            s = KTH[empty][(int)(x * POP[empty])];
        } else {
            if (p->done == FULL9) return 0.5;
            if (decisive) {
                unsigned boards = COMPLETING[p->won[t]] & ~(unsigned)p->done & FULL9;
                for (int c = 0; c < 9; c++)
                    if ((boards >> c & 1) && (COMPLETING[me[c]] & ~(unsigned)them[c]))
                        return t == start ? 1.0 : 0.0;
            }
            int total = 0;
            for (int c = 0; c < 9; c++)
                if (!(p->done >> c & 1)) total += POP[FULL9 & ~(unsigned)(me[c] | them[c])];
            double x = rng_next(r);
            if (r->failed) return -1.0;
            int k = (int)(x * total);
            for (b = 0; b < 9; b++) {
                if (p->done >> b & 1) continue;
                unsigned empty = FULL9 & ~(unsigned)(me[b] | them[b]);
                if (k < POP[empty]) {
                    s = KTH[empty][k];
                    break;
                }
                k -= POP[empty];
            }
        }
        if (pos_play(p, b * 9 + s)) return t == start ? 1.0 : 0.0;
    }
}

static long long perft(const Pos *p, int depth) {
    if (depth == 0) return 1;
    Cells c = legal(p);
    if (depth == 1) return cells_count(c);
    long long total = 0;
    for (int k = cells_count(c) - 1; k >= 0; k--) {
        Pos child = *p;
        if (!pos_play(&child, cells_kth(c, k))) total += perft(&child, depth - 1);
    }
    return total;
}

/* (me, them, mine_won, theirs_won, done, forced): fast.Position's fields, me to move. */
static int parse_pos(PyObject *args, Pos *p, PyObject **rest) {
    PyObject *me, *them;
    int mine_won, theirs_won, done, forced;
    if (PyTuple_GET_SIZE(args) < 6) {
        PyErr_SetString(PyExc_TypeError, "expected me, them, mine_won, theirs_won, done, forced");
        return -1;
    }
    me = PyTuple_GET_ITEM(args, 0);
    them = PyTuple_GET_ITEM(args, 1);
    mine_won = (int)PyLong_AsLong(PyTuple_GET_ITEM(args, 2));
    theirs_won = (int)PyLong_AsLong(PyTuple_GET_ITEM(args, 3));
    done = (int)PyLong_AsLong(PyTuple_GET_ITEM(args, 4));
    forced = (int)PyLong_AsLong(PyTuple_GET_ITEM(args, 5));
    if (PyErr_Occurred()) return -1;
    memset(p, 0, sizeof *p);
    for (int side = 0; side < 2; side++) {
        PyObject *seq = PySequence_Fast(side ? them : me, "marks must be a sequence of 9 ints");
        if (seq == NULL) return -1;
        if (PySequence_Fast_GET_SIZE(seq) != 9) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "marks must be 9 ints");
            return -1;
        }
        for (int b = 0; b < 9; b++)
            p->m[side][b] = (uint16_t)(PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, b)) & FULL9);
        Py_DECREF(seq);
    }
    if (PyErr_Occurred()) return -1;
    p->won[0] = (uint16_t)(mine_won & FULL9);
    p->won[1] = (uint16_t)(theirs_won & FULL9);
    p->done = (uint16_t)(done & FULL9);
    p->forced = (int8_t)(forced >= 0 && forced < 9 ? forced : -1);
    p->turn = 0;
    if (rest != NULL) *rest = PyTuple_GetSlice(args, 6, PyTuple_GET_SIZE(args));
    return rest != NULL && *rest == NULL ? -1 : 0;
}

static PyObject *py_perft(PyObject *self, PyObject *args) {
    Pos p;
    PyObject *rest;
    int depth;
    if (parse_pos(args, &p, &rest) < 0) return NULL;
    int ok = PyArg_ParseTuple(rest, "i", &depth);
    Py_DECREF(rest);
    if (!ok) return NULL;
    return PyLong_FromLongLong(perft(&p, depth));
}

static PyObject *py_playout(PyObject *self, PyObject *args) {
    Pos p;
    PyObject *rest;
    int decisive = 0;
    Rng r = {NULL, 0, 0};
    if (parse_pos(args, &p, &rest) < 0) return NULL;
    int ok = PyArg_ParseTuple(rest, "O|p", &r.callable, &decisive);
    Py_DECREF(rest);
    if (!ok) return NULL;
    double value = playout(&p, &r, decisive);
    return value < 0.0 ? NULL : PyFloat_FromDouble(value);
}

#include "_ctree.h"

static PyMethodDef module_methods[] = {
    {"perft", py_perft, METH_VARARGS,
     "perft(me, them, mine_won, theirs_won, done, forced, depth): as fast.perft"},
    {"playout", py_playout, METH_VARARGS,
     "playout(me, them, mine_won, theirs_won, done, forced, random, decisive=False): as "
     "fast.playout (the lists are not changed)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_csearch", "Compiled perft, playouts and tree search.", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__csearch(void) {
    init_tables();
    if (PyType_Ready(&TreeType) < 0) return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) return NULL;
    if (PyModule_AddObjectRef(module, "Tree", (PyObject *)&TreeType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
