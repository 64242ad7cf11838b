/* ag_f_grid.c: the derivative of grid_sampler_2d (the op set has no
 * grid_sampler_2d_backward), after ATen's GridSampler.h backward:
 *  - the source coordinate: unnormalized (times (size-1)/2 or size/2), then
 *    padded (border: clipped; reflection: reflected, then clipped), carrying
 *    the derivative of each step (0 where clipped, -1 where reflected);
 *  - taps: bilinear 4 corners, nearest 1 (round half to even), bicubic 16
 *    (A = -0.75, each tap's coordinate padded on its own, so the grid's
 *    gradient goes only through the cubic weights and the unnormalize scale);
 *  - input's gradient: each tap scatter-adds grad * weight where in bounds;
 *    grid's: sum over channels of value * d(weight)/d(coordinate) * grad.
 * Every call is differentiable: a double backward runs through the formula.
 */
#include "ag.h"

#define F(name) static tabi_status name(ag_fctx *c)
#define TV(t) tabi_tensor_value(t)
#define U(op, a) ag_u(c, AG_OP_##op, (a))
#define B(op, a, b) ag_b(c, AG_OP_##op, (a), (b))
#define MUL(a, b) B(MUL, a, b)
#define ADD(a, b) B(ADD, a, b)
#define SUB(a, b) B(SUB, a, b)
#define MULS(a, s) ag_muls(c, (a), (s))
#define ADDS(a, s) ag_adds(c, (a), (s))
#define WHERE(p, a, b) ag_where(c, (p), (a), (b))
#define Z(like) ag_zero_s(c, (like))
#define GTS(a, s) ag_bs(c, AG_OP_GTS, (a), (s))
#define LTS(a, s) ag_bs(c, AG_OP_LTS, (a), (s))
#define GES(a, s) ag_bs(c, AG_OP_GES, (a), (s))
#define LES(a, s) ag_bs(c, AG_OP_LES, (a), (s))
#define AND(a, b) B(LAND, a, b)

typedef struct gs_ctx {
  ag_fctx *c;
  int64_t N, C, H, W, P;
  int pad, align;
  T xf;     /* input [N, C, H*W] */
  T g;      /* grad [N, C, P] */
  T gin;    /* accumulated input grad [N, C, H*W] */
  T gix, giy; /* accumulated d/d(ix), d/d(iy) [N, P] */
  int need_in, need_grid;
} gs_ctx;

/* ATen's clip_coordinates_set_grad. */
static T clip_set_grad(ag_fctx *c, T x, int64_t size, T *mult) {
  double hi = (double)(size - 1);
  T inside = AND(GTS(x, 0.0), LTS(x, hi));
  *mult = MUL(*mult, ag_to_dtype(c, inside, tabi_tensor_dtype(x)));
  tabi_value a[3] = {TV(x), tabi_float(0.0), tabi_float(hi)};
  return x ? ag_call_t(c, AG_OP_CLAMP, a, 3) : NULL;
}

/* ATen's reflect_coordinates_set_grad. */
static T reflect_set_grad(ag_fctx *c, T x, int64_t twice_low, int64_t twice_high, T *mult) {
  if (twice_low == twice_high) {
    *mult = ag_zeros_like(c, x);
    return ag_zeros_like(c, x);
  }
  double mn = (double)twice_low / 2, span = (double)(twice_high - twice_low) / 2;
  T d = ADDS(x, -mn);
  T neg = LTS(d, 0.0);
  T one = ag_full_like(c, x, 1.0), mone = ag_full_like(c, x, -1.0);
  T sgn = WHERE(neg, mone, one);
  T a = U(ABS, d);
  T extra = ag_bs(c, AG_OP_FMODS, a, span);
  T flips = U(FLOOR, MULS(a, 1.0 / span));
  T odd = ag_bs(c, AG_OP_NES, ag_bs(c, AG_OP_FMODS, flips, 2.0), 0.0);
  *mult = MUL(*mult, WHERE(odd, U(NEG, sgn), sgn));
  return WHERE(odd, ADDS(U(NEG, extra), span + mn), ADDS(extra, mn));
}

/* The padded source coordinate and its derivative w.r.t. the grid value. */
static T source_index(gs_ctx *s, T gc, int64_t size, int with_pad, T *mult) {
  ag_fctx *c = s->c;
  double sc = s->align ? (double)(size - 1) / 2 : (double)size / 2;
  T x = ADDS(MULS(gc, sc), (double)(size - 1) / 2);
  *mult = ag_full_like(c, gc, sc);
  if (!with_pad) return x;
  if (s->pad == 1) return clip_set_grad(c, x, size, mult);
  if (s->pad == 2) {
    x = s->align ? reflect_set_grad(c, x, 0, 2 * (size - 1), mult)
                 : reflect_set_grad(c, x, -1, 2 * size - 1, mult);
    return clip_set_grad(c, x, size, mult);
  }
  return x;
}

/* Plain padding of a tap coordinate (bicubic): no derivative needed. */
static T pad_plain(gs_ctx *s, T x, int64_t size) {
  T m = ag_full_like(s->c, x, 1.0);
  if (s->pad == 1) return clip_set_grad(s->c, x, size, &m);
  if (s->pad == 2) {
    x = s->align ? reflect_set_grad(s->c, x, 0, 2 * (size - 1), &m)
                 : reflect_set_grad(s->c, x, -1, 2 * size - 1, &m);
    return clip_set_grad(s->c, x, size, &m);
  }
  return x;
}

/* One tap at float coordinates (xc, yc) [N, P] with weight w and the weight's
 * derivatives dwx, dwy (NULL: none). */
static void tap(gs_ctx *s, T xc, T yc, T w, T dwx, T dwy) {
  ag_fctx *c = s->c;
  if (c->status != TABI_OK) return;
  T valid = AND(AND(GES(xc, 0.0), LES(xc, (double)(s->W - 1))),
                AND(GES(yc, 0.0), LES(yc, (double)(s->H - 1))));
  T flat = ADD(MULS(U(TRUNC, yc), (double)s->W), U(TRUNC, xc));
  T idx = ag_to_dtype(c, WHERE(valid, flat, Z(flat)), TABI_DTYPE_INT64);
  int64_t es[3] = {s->N, s->C, s->P};
  T idx3 = ag_expand(c, ag_unsqueeze(c, idx, 1), 3, es);
  T vmask = ag_unsqueeze(c, valid, 1);
  if (s->need_in) {
    T src = WHERE(vmask, MUL(s->g, ag_unsqueeze(c, w, 1)), Z(s->g));
    tabi_value a[4] = {TV(s->gin), tabi_int(2), TV(idx3), TV(src)};
    if (src && idx3 && s->gin) s->gin = ag_call_t(c, AG_OP_SCATTER_ADD, a, 4);
  }
  if (s->need_grid && (dwx || dwy)) {
    tabi_value a[3] = {TV(s->xf), tabi_int(2), TV(idx3)};
    T val = (s->xf && idx3) ? ag_call_t(c, AG_OP_GATHER, a, 3) : NULL;
    val = WHERE(vmask, val, Z(s->g));
    int64_t one = 1;
    T sg = ag_sum(c, MUL(val, s->g), &one, 1, 0); /* [N, P] */
    if (dwx) s->gix = s->gix ? ADD(s->gix, MUL(sg, dwx)) : MUL(sg, dwx);
    if (dwy) s->giy = s->giy ? ADD(s->giy, MUL(sg, dwy)) : MUL(sg, dwy);
  }
}

static T cubic1(ag_fctx *c, T t, double A) { /* ((A+2) t - (A+3)) t^2 + 1 */
  return ADDS(MUL(ADDS(MULS(t, A + 2), -(A + 3)), MUL(t, t)), 1.0);
}
static T cubic2(ag_fctx *c, T t, double A) { /* ((A t - 5A) t + 8A) t - 4A */
  return ADDS(MUL(ADDS(MUL(ADDS(MULS(t, A), -5 * A), t), 8 * A), t), -4 * A);
}
static T dcubic1(ag_fctx *c, T t, double A) { /* 3(A+2) t^2 - 2(A+3) t */
  return MUL(ADDS(MULS(t, 3 * (A + 2)), -2 * (A + 3)), t);
}
static T dcubic2(ag_fctx *c, T t, double A) { /* 3A t^2 - 10A t + 8A */
  return ADDS(MUL(ADDS(MULS(t, 3 * A), -10 * A), t), 8 * A);
}

F(f_grid_sampler_2d) {
  T x = A(0), grid = A(1), g = G(0);
  if (!x || !grid || !g || (!NEEDA(0) && !NEEDA(1))) return c->status;
  gs_ctx s = {c, x->dl.shape[0], x->dl.shape[1], x->dl.shape[2], x->dl.shape[3],
              grid->dl.shape[1] * grid->dl.shape[2], (int)ag_arg_i(c, 3), (int)ag_arg_i(c, 4),
              NULL, NULL, NULL, NULL, NULL, NEEDA(0), NEEDA(1)};
  int64_t mode = ag_arg_i(c, 2);
  int64_t fs[3] = {s.N, s.C, s.H * s.W}, gs3[3] = {s.N, s.C, s.P}, ps[2] = {s.N, s.P};
  s.xf = ag_reshape(c, x, 3, fs);
  s.g = ag_reshape(c, g, 3, gs3);
  if (s.need_in) s.gin = ag_zeros_shape(c, g, 3, fs);
  tabi_value sx[3] = {TV(grid), tabi_int(3), tabi_int(0)}, sy[3] = {TV(grid), tabi_int(3), tabi_int(1)};
  T gx = ag_reshape(c, ag_call_t(c, AG_OP_SELECT, sx, 3), 2, ps);
  T gy = ag_reshape(c, ag_call_t(c, AG_OP_SELECT, sy, 3), 2, ps);
  T mx = NULL, my = NULL;
  T ix = source_index(&s, gx, s.W, mode != 2, &mx);
  T iy = source_index(&s, gy, s.H, mode != 2, &my);
  if (mode == 1) { /* nearest: the grid gets no gradient */
    tap(&s, U(ROUND, ix), U(ROUND, iy), ag_full_like(c, ix, 1.0), NULL, NULL);
  } else {
    T x0 = U(FLOOR, ix), y0 = U(FLOOR, iy);
    T tx = SUB(ix, x0), ty = SUB(iy, y0);
    if (mode == 0) {
      T wx[2] = {ADDS(U(NEG, tx), 1.0), tx}, wy[2] = {ADDS(U(NEG, ty), 1.0), ty};
      T one = ag_full_like(c, tx, 1.0), mone = ag_full_like(c, tx, -1.0);
      T dw[2] = {mone, one};
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
          tap(&s, ADDS(x0, b), ADDS(y0, a), MUL(wx[b], wy[a]), MUL(dw[b], wy[a]), MUL(wx[b], dw[a]));
    } else {
      const double A_ = -0.75;
      T cx[4] = {cubic2(c, ADDS(tx, 1.0), A_), cubic1(c, tx, A_), cubic1(c, ADDS(U(NEG, tx), 1.0), A_),
                 cubic2(c, ADDS(U(NEG, tx), 2.0), A_)};
      T cy[4] = {cubic2(c, ADDS(ty, 1.0), A_), cubic1(c, ty, A_), cubic1(c, ADDS(U(NEG, ty), 1.0), A_),
                 cubic2(c, ADDS(U(NEG, ty), 2.0), A_)};
      T dx[4] = {dcubic2(c, ADDS(tx, 1.0), A_), dcubic1(c, tx, A_),
                 U(NEG, dcubic1(c, ADDS(U(NEG, tx), 1.0), A_)), U(NEG, dcubic2(c, ADDS(U(NEG, tx), 2.0), A_))};
      T dy[4] = {dcubic2(c, ADDS(ty, 1.0), A_), dcubic1(c, ty, A_),
                 U(NEG, dcubic1(c, ADDS(U(NEG, ty), 1.0), A_)), U(NEG, dcubic2(c, ADDS(U(NEG, ty), 2.0), A_))};
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
          T px = pad_plain(&s, ADDS(x0, (double)(b - 1)), s.W);
          T py = pad_plain(&s, ADDS(y0, (double)(a - 1)), s.H);
          tap(&s, px, py, MUL(cx[b], cy[a]), MUL(dx[b], cy[a]), MUL(cx[b], dy[a]));
        }
    }
  }
  if (s.need_in && s.gin) GINA(0, ag_reshape(c, s.gin, 4, x->dl.shape));
  if (s.need_grid) {
    int64_t gs4[4] = {s.N, grid->dl.shape[1], grid->dl.shape[2], 1};
    T a = s.gix ? MUL(s.gix, mx) : ag_zeros_shape(c, g, 2, ps);
    T b = s.giy ? MUL(s.giy, my) : ag_zeros_shape(c, g, 2, ps);
    tabi_tensor *l[2] = {ag_reshape(c, a, 4, gs4), ag_reshape(c, b, 4, gs4)};
    tabi_value ca[2] = {tabi_tensor_list(l, 2), tabi_int(3)};
    if (l[0] && l[1]) GINA(1, ag_call_t(c, AG_OP_CAT, ca, 2));
  }
  return c->status;
}

const ag_formula ag_formulas_grid[] = {
    {"aten::grid_sampler_2d", f_grid_sampler_2d, 0, 0},
    {NULL, NULL, 0, 0}};
