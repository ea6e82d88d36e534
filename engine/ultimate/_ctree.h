/* The tree search of engine/ultimate/mcts.py in C (included by _csearch.c).
 *
 * UCT with an MCTS-solver: ``proven`` is from the view of the side that moved into a node
 * (1 won, 0 drawn, -1 lost, UNKNOWN). A node's moves not yet expanded are a Cells mask;
 * its children a linked list. The nodes live in one array; advancing the root to a
 * child copies that subtree to a fresh array, so a kept tree holds no garbage. */

typedef struct {
    double wins;
    int32_t visits, child, sibling;
    uint32_t untried_hi;
    uint64_t untried_lo;
    int8_t move, proven;
} Node;

typedef struct {
    PyObject_HEAD Node *nodes;
    int32_t count, cap;
    int busy; /* a search runs (without the GIL): nothing else may touch the nodes */
    Pos pos;  /* the root's position */
} TreeObject;

static int tree_free(TreeObject *t) {
    if (!t->busy) return 1;
    PyErr_SetString(PyExc_RuntimeError, "the tree is being searched in another thread");
    return 0;
}

static int tree_reserve(TreeObject *t, int32_t need) {
    if (need <= t->cap) return 0;
    if (need > MAX_NODES) return -1;
    int32_t cap = t->cap ? t->cap : 1024;
    while (cap < need) cap *= 2;
    if (cap > MAX_NODES) cap = MAX_NODES;
    Node *nodes = realloc(t->nodes, (size_t)cap * sizeof(Node));
    if (nodes == NULL) return -1;
    t->nodes = nodes;
    t->cap = cap;
    return 0;
}

static int32_t tree_add(TreeObject *t, int move, int won_game, const Pos *p) {
    Node *n = &t->nodes[t->count];
    Cells c = {0, 0};
    if (!won_game) c = legal(p);
    n->wins = 0.0;
    n->visits = 0;
    n->child = n->sibling = -1;
    n->untried_lo = c.lo;
    n->untried_hi = c.hi;
    n->move = (int8_t)move;
    n->proven = won_game ? 1 : (c.lo | c.hi) ? UNKNOWN : 0;
    return t->count++;
}

static void prove(Node *nodes, const int32_t *path, int depth) {
    for (int i = depth - 1; i > 0; i--) {
        Node *node = &nodes[path[i]], *parent = &nodes[path[i - 1]];
        if (parent->proven != UNKNOWN) return;
        if (node->proven == 1) {
            parent->proven = -1;
        } else if (!(parent->untried_lo | parent->untried_hi)) {
            int best = -1;
            for (int32_t c = parent->child; c >= 0; c = nodes[c].sibling) {
                if (nodes[c].proven == UNKNOWN) return;
                if (nodes[c].proven > best) best = nodes[c].proven;
            }
            parent->proven = (int8_t)-best;
        } else {
            return;
        }
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One iteration: select, expand one move, play out, back up. -1 (the tree unchanged) when
 * a Python random source failed. */
static int iterate(TreeObject *t, Rng *r, double exploration, int decisive, int solver) {
    Node *nodes = t->nodes;
    Pos p = t->pos;
    int32_t path[MAX_PATH], node = 0;
    int depth = 1;
    double value = 0.5;
    path[0] = 0;
    for (;;) {
        Node *n = &nodes[node];
        if (n->proven != UNKNOWN) {
            value = (n->proven + 1) / 2.0;
            if (solver) prove(nodes, path, depth);
            break;
        }
        if (n->untried_lo | n->untried_hi) {
            Cells c = {n->untried_lo, n->untried_hi};
            double x = rng_next(r);
            if (r->failed) return -1;
            int cell = cells_kth(c, (int)(x * cells_count(c)));
            cells_remove(&c, cell);
            n->untried_lo = c.lo;
            n->untried_hi = c.hi;
            int won_game = pos_play(&p, cell);
            int32_t child = tree_add(t, cell, won_game, &p);
            nodes[child].sibling = n->child;
            n->child = child;
            path[depth++] = child;
            node = child;
            if (nodes[child].proven == UNKNOWN) {
                double result = playout(&p, r, decisive);
                if (result < 0.0) { /* undo the expansion */
                    n->child = nodes[child].sibling;
                    t->count--;
                    cells_add(&c, cell / 9, 1u << cell % 9);
                    n->untried_lo = c.lo;
                    n->untried_hi = c.hi;
                    return -1;
                }
                value = 1.0 - result;
                break;
            }
            continue;
        }
        double scale = exploration * sqrt(log((double)n->visits)), best = -1.0;
        int32_t chosen = n->child;
        for (int32_t c = n->child; c >= 0; c = nodes[c].sibling) {
            const Node *ch = &nodes[c];
            if (ch->proven == -1 && solver) continue;
            double score = ch->wins / ch->visits + scale / sqrt((double)ch->visits);
            if (score > best) {
                best = score;
                chosen = c;
            }
        }
        pos_play(&p, nodes[chosen].move);
        path[depth++] = chosen;
        node = chosen;
    }
    for (int i = depth - 1; i >= 0; i--) {
        nodes[path[i]].visits++;
        nodes[path[i]].wins += value;
        value = 1.0 - value;
    }
    return 0;
}

/* True when the root's most visited move (not proved lost) leads the next by more visits
 * than the search can still run at its rate so far: the answer is settled, stop early.
 * Only after SETTLE_AFTER iterations, so the rate is measured (a kept tree's lead would
 * otherwise stop a search at its first check). */
#define SETTLE_AFTER 4096

static int settled(const TreeObject *t, long long done, double began, double at, double end) {
    int32_t first = 0, second = 0;
    for (int32_t c = t->nodes[0].child; c >= 0; c = t->nodes[c].sibling) {
        int32_t v = t->nodes[c].proven == -1 ? 0 : t->nodes[c].visits;
        if (v > first) {
            second = first;
            first = v;
        } else if (v > second) {
            second = v;
        }
    }
    return done >= SETTLE_AFTER && first - second > done / (at - began) * (end - at);
}

/* The search loop; the caller holds the GIL or not (only a Python ``random`` needs it). */
static long long search_loop(TreeObject *t, Rng *r, double seconds, long long limit,
                             double exploration, int decisive, int solver) {
    long long done = 0;
    double began = now(), deadline = began + seconds;
    while (t->nodes[0].proven == UNKNOWN && (limit < 0 || done < limit)) {
        if (seconds >= 0.0 && done % CHECK_EVERY == 0) {
            double at = now();
            if (at >= deadline || settled(t, done, began, at, deadline)) break;
        }
        if (tree_reserve(t, t->count + 1) < 0) break; /* full: the answer stands */
        if (iterate(t, r, exploration, decisive, solver) < 0) break;
        done++;
    }
    return done;
}

static PyObject *tree_search(TreeObject *t, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"seconds", "iterations", "seed", "exploration", "decisive",
                            "solver", "random", NULL};
    PyObject *seconds_obj = Py_None, *iterations_obj = Py_None, *random = Py_None;
    unsigned long long seed = 1;
    double exploration = 0.7;
    int decisive = 1, solver = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|KdppO", names, &seconds_obj,
                                     &iterations_obj, &seed, &exploration, &decisive, &solver,
                                     &random))
        return NULL;
    double seconds = seconds_obj == Py_None ? -1.0 : PyFloat_AsDouble(seconds_obj);
    long long limit = iterations_obj == Py_None ? -1 : PyLong_AsLongLong(iterations_obj);
    if (PyErr_Occurred() || !tree_free(t)) return NULL;
    if (random != Py_None && !PyCallable_Check(random)) {
        PyErr_SetString(PyExc_TypeError, "random must be a callable or None");
        return NULL;
    }
    Rng r = {NULL, seed ? seed : 0x9E3779B97F4A7C15ull, 0};
    long long done;
    t->busy = 1;
    if (random != Py_None) { /* Python's numbers (to compare with mcts.PythonTree): the GIL */
        r.callable = random;
        done = search_loop(t, &r, seconds, limit, exploration, decisive, solver);
    } else {
        Py_BEGIN_ALLOW_THREADS;
        done = search_loop(t, &r, seconds, limit, exploration, decisive, solver);
        Py_END_ALLOW_THREADS;
    }
    t->busy = 0;
    if (r.failed) return NULL;
    return PyLong_FromLongLong(done);
}

static int tree_init(TreeObject *t, PyObject *args, PyObject *kwargs) {
    Pos p;
    if (!tree_free(t) || parse_pos(args, &p, NULL) < 0) return -1;
    t->count = 0;
    if (tree_reserve(t, 1) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    t->pos = p;
    tree_add(t, -1, 0, &p);
    return 0;
}

static void tree_dealloc(TreeObject *t) {
    free(t->nodes);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static int32_t root_child(TreeObject *t, int move) {
    for (int32_t c = t->nodes[0].child; c >= 0; c = t->nodes[c].sibling)
        if (t->nodes[c].move == move) return c;
    return -1;
}

static PyObject *tree_best_moves(TreeObject *t, PyObject *unused) {
    if (!tree_free(t)) return NULL;
    Node *nodes = t->nodes;
    const Node *root = &nodes[0];
    int chosen[81], count = 0, want = 1; /* 1: proved wins; 2: most visited alive; 3: any */
    if (root->child < 0) {
        Cells c = {root->untried_lo, root->untried_hi};
        for (int k = 0, n = cells_count(c); k < n; k++) chosen[count++] = cells_kth(c, k);
    } else {
        for (int32_t c = root->child; c >= 0; c = nodes[c].sibling)
            if (nodes[c].proven == 1) want = 0;
        if (want) {
            want = 3;
            for (int32_t c = root->child; c >= 0; c = nodes[c].sibling)
                if (nodes[c].proven != -1) want = 2;
        }
        int32_t most = -1;
        for (int32_t c = root->child; c >= 0; c = nodes[c].sibling)
            if ((want == 3 || nodes[c].proven != -1) && nodes[c].visits > most)
                most = nodes[c].visits;
        for (int32_t c = root->child; c >= 0; c = nodes[c].sibling) {
            const Node *ch = &nodes[c];
            if (want == 0 ? ch->proven == 1
                          : (want == 3 || ch->proven != -1) && ch->visits == most)
                chosen[count++] = ch->move;
        }
    }
    PyObject *list = PyList_New(count);
    if (list == NULL) return NULL;
    for (int i = 0; i < count; i++) PyList_SET_ITEM(list, i, PyLong_FromLong(chosen[i]));
    if (PyList_Sort(list) < 0) {
        Py_DECREF(list);
        return NULL;
    }
    return list;
}

/* Every node as (parent, move, visits, wins, proven), parents first (the root's parent and
 * move are -1): what mcts.PythonTree.nodes gives, to compare the two trees. */
static PyObject *tree_nodes(TreeObject *t, PyObject *unused) {
    if (!tree_free(t)) return NULL;
    int32_t *parent = malloc((size_t)t->count * sizeof(int32_t));
    PyObject *list = parent == NULL ? NULL : PyList_New(t->count);
    if (list == NULL) {
        free(parent);
        return parent == NULL ? PyErr_NoMemory() : NULL;
    }
    parent[0] = -1;
    for (int32_t i = 0; i < t->count; i++) {
        const Node *n = &t->nodes[i];
        for (int32_t c = n->child; c >= 0; c = t->nodes[c].sibling) parent[c] = i;
        PyObject *item = n->proven == UNKNOWN
                             ? Py_BuildValue("(iiidO)", parent[i], n->move, n->visits, n->wins,
                                             Py_None)
                             : Py_BuildValue("(iiidi)", parent[i], n->move, n->visits, n->wins,
                                             n->proven);
        if (item == NULL) {
            free(parent);
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    free(parent);
    return list;
}

static PyObject *tree_child_stats(TreeObject *t, PyObject *arg) {
    if (!tree_free(t)) return NULL;
    int32_t c = root_child(t, (int)PyLong_AsLong(arg));
    if (PyErr_Occurred()) return NULL;
    if (c < 0) Py_RETURN_NONE;
    const Node *n = &t->nodes[c];
    if (n->proven == UNKNOWN) return Py_BuildValue("(idO)", n->visits, n->wins, Py_None);
    return Py_BuildValue("(idi)", n->visits, n->wins, n->proven);
}

/* Make the root's child for ``move`` the root, copying its subtree breadth first. */
static PyObject *tree_advance(TreeObject *t, PyObject *arg) {
    int move = (int)PyLong_AsLong(arg);
    if (PyErr_Occurred() || !tree_free(t)) return NULL;
    int32_t start = root_child(t, move);
    if (start < 0) Py_RETURN_FALSE;
    Node *old = t->nodes, *fresh = malloc((size_t)t->cap * sizeof(Node));
    int32_t *from = malloc((size_t)t->cap * sizeof(int32_t));
    if (fresh == NULL || from == NULL) {
        free(fresh);
        free(from);
        return PyErr_NoMemory();
    }
    int32_t count = 1;
    fresh[0] = old[start];
    fresh[0].child = fresh[0].sibling = -1;
    from[0] = start;
    for (int32_t head = 0; head < count; head++) {
        int32_t previous = -1;
        for (int32_t c = old[from[head]].child; c >= 0; c = old[c].sibling) {
            fresh[count] = old[c];
            fresh[count].child = fresh[count].sibling = -1;
            from[count] = c;
            if (previous < 0) fresh[head].child = count;
            else fresh[previous].sibling = count;
            previous = count++;
        }
    }
    free(from);
    free(old);
    t->nodes = fresh;
    t->count = count;
    pos_play(&t->pos, move);
    Py_RETURN_TRUE;
}

static PyObject *tree_proven(TreeObject *t, void *unused) {
    int proven = t->nodes[0].proven;
    if (proven == UNKNOWN) Py_RETURN_NONE;
    return PyLong_FromLong(proven);
}

static PyObject *tree_visits(TreeObject *t, void *unused) {
    return PyLong_FromLong(t->nodes[0].visits);
}

static PyObject *tree_size(TreeObject *t, void *unused) { return PyLong_FromLong(t->count); }

static PyMethodDef tree_methods[] = {
    {"search", (PyCFunction)(void (*)(void))tree_search, METH_VARARGS | METH_KEYWORDS,
     "search(seconds, iterations, seed=1, exploration=0.7, decisive=True, solver=True, "
     "random=None) -> iterations run; solver=False: plain UCT (no proofs; the bench's "
     "reference); random: a callable drawing in [0, 1) instead of the seeded generator "
     "(holds the GIL; to compare with mcts.PythonTree)"},
    {"nodes", (PyCFunction)tree_nodes, METH_NOARGS,
     "nodes() -> [(parent, move, visits, wins, proven)], parents first"},
    {"best_moves", (PyCFunction)tree_best_moves, METH_NOARGS, "as mcts.best_moves"},
    {"child_stats", (PyCFunction)tree_child_stats, METH_O,
     "child_stats(move) -> (visits, wins, proven) of the root's child, or None"},
    {"advance", (PyCFunction)tree_advance, METH_O,
     "advance(move) -> True if the root's child for move became the root"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef tree_getset[] = {
    {"proven", (getter)tree_proven, NULL, "the root's proof, for the side that moved into it"},
    {"visits", (getter)tree_visits, NULL, "the root's visits"},
    {"size", (getter)tree_size, NULL, "nodes in the tree"},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TreeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "engine.ultimate._csearch.Tree",
    .tp_basicsize = sizeof(TreeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Tree(me, them, mine_won, theirs_won, done, forced): a search tree",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)tree_init,
    .tp_dealloc = (destructor)tree_dealloc,
    .tp_methods = tree_methods,
    .tp_getset = tree_getset,
};
