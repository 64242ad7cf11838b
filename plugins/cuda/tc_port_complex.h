/* plugins/cuda/tc_port_complex.h: tcx::complex<T> and its functions, for
 * device code shared by the CUDA and ROCm plugins.
 *
 * nvcc: tcx is thrust (exactly what the CUDA plugin always used).
 * hipcc and the gpusim plugins (TC_SIM): rocThrust is absent on Debian 12 and std::complex cannot be a
 * __shared__ array element (its constructor is not trivial), so tcx::complex
 * is a plain two-field struct with a trivial default constructor; its
 * transcendental functions go through std::complex, which clang makes
 * callable on the device (libstdc++'s generic formulas: not yet checked
 * against the reference on AMD hardware, see docs/cuda.md). */
#ifndef TABI_TC_PORT_COMPLEX_H
#define TABI_TC_PORT_COMPLEX_H

#include "tc_port.h"

#if !defined(TC_HIP) && !defined(TC_SIM)
#include <thrust/complex.h>
namespace tcx = thrust;
#else
#include <cmath>
#include <complex>

namespace tcx {

#define TCX_HD __host__ __device__ inline

template <class T>
struct complex {
  T re_, im_;
  complex() = default;
  TCX_HD constexpr complex(T r, T i = T()) : re_(r), im_(i) {}
  template <class U>
  TCX_HD explicit complex(const complex<U> &o) : re_((T)o.real()), im_((T)o.imag()) {}
  TCX_HD constexpr T real() const { return re_; }
  TCX_HD constexpr T imag() const { return im_; }
  TCX_HD complex &operator+=(const complex &o) { re_ += o.re_; im_ += o.im_; return *this; }
  TCX_HD complex &operator-=(const complex &o) { re_ -= o.re_; im_ -= o.im_; return *this; }
  TCX_HD complex &operator*=(const complex &o) { *this = *this * o; return *this; }
  TCX_HD complex &operator/=(const complex &o) { *this = *this / o; return *this; }
  TCX_HD friend complex operator+(const complex &a, const complex &b) { return complex(a.re_ + b.re_, a.im_ + b.im_); }
  TCX_HD friend complex operator-(const complex &a, const complex &b) { return complex(a.re_ - b.re_, a.im_ - b.im_); }
  TCX_HD friend complex operator*(const complex &a, const complex &b) {
    return complex(a.re_ * b.re_ - a.im_ * b.im_, a.re_ * b.im_ + a.im_ * b.re_);
  }
  TCX_HD friend complex operator/(const complex &a, const complex &b) {
    std::complex<T> r = std::complex<T>(a.re_, a.im_) / std::complex<T>(b.re_, b.im_);
    return complex(r.real(), r.imag());
  }
  TCX_HD friend complex operator+(const complex &a, T b) { return complex(a.re_ + b, a.im_); }
  TCX_HD friend complex operator-(const complex &a, T b) { return complex(a.re_ - b, a.im_); }
  TCX_HD friend complex operator*(const complex &a, T b) { return complex(a.re_ * b, a.im_ * b); }
  TCX_HD friend complex operator*(T a, const complex &b) { return complex(a * b.re_, a * b.im_); }
  TCX_HD friend complex operator/(const complex &a, T b) { return complex(a.re_ / b, a.im_ / b); }
  TCX_HD friend complex operator-(const complex &a) { return complex(-a.re_, -a.im_); }
  TCX_HD friend bool operator==(const complex &a, const complex &b) { return a.re_ == b.re_ && a.im_ == b.im_; }
  TCX_HD friend bool operator!=(const complex &a, const complex &b) { return !(a == b); }
};

template <class T>
TCX_HD complex<T> conj(const complex<T> &z) { return complex<T>(z.real(), -z.imag()); }

#define TCX_STD1(name)                                                        \
  template <class T>                                                          \
  TCX_HD complex<T> name(const complex<T> &z) {                              \
    std::complex<T> r = std::name(std::complex<T>(z.real(), z.imag()));      \
    return complex<T>(r.real(), r.imag());                                    \
  }
TCX_STD1(tan)
TCX_STD1(log)

/* exp of a real argument stays real (C99; libstdc++ gives inf*0 = NaN). */
template <class T>
TCX_HD complex<T> exp(const complex<T> &z) {
  if (z.imag() == 0 && !isnan(z.real())) return complex<T>(::exp(z.real()), z.imag());
  std::complex<T> r = std::exp(std::complex<T>(z.real(), z.imag()));
  return complex<T>(r.real(), r.imag());
}

/* sinh/cosh of a real argument (imaginary +-0) stay real, with C99's signed
 * zero (libstdc++ gives inf*0 = NaN once sinh/cosh overflow); sin/cos go
 * through them (sin z = -i sinh(iz), cos z = cosh(iz)). */
template <class T>
TCX_HD complex<T> sinh(const complex<T> &z) {
  if (z.imag() == 0 && !isnan(z.real())) return complex<T>(::sinh(z.real()), z.imag());
  std::complex<T> r = std::sinh(std::complex<T>(z.real(), z.imag()));
  return complex<T>(r.real(), r.imag());
}
template <class T>
TCX_HD complex<T> cosh(const complex<T> &z) {
  if (z.imag() == 0 && !isnan(z.real()))
    return complex<T>(::cosh(z.real()), signbit(z.real()) ? -z.imag() : z.imag());
  std::complex<T> r = std::cosh(std::complex<T>(z.real(), z.imag()));
  return complex<T>(r.real(), r.imag());
}
template <class T>
TCX_HD complex<T> sin(const complex<T> &z) {
  complex<T> w = sinh(complex<T>(-z.imag(), z.real()));
  return complex<T>(w.imag(), -w.real());
}
template <class T>
TCX_HD complex<T> cos(const complex<T> &z) { return cosh(complex<T>(-z.imag(), z.real())); }
/* tanh of finite z: (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y),
 * which is (sinh 2x + i sin 2y) / (cosh 2x + cos 2y) without doubling y (2y
 * overflows for |y| > DBL_MAX/2: tan of a huge real was NaN, found by the
 * gpusim conformance run); for |x| > 20 (where sinh^2 overflows sooner)
 * +-1 + i 4 sin y cos y e^{-2|x|}. Non-finite input is the caller's
 * (tc_ew.cu's tc_ctanh handles it before calling this). */
template <class T>
TCX_HD complex<T> tanh(const complex<T> &z) {
  T x = z.real(), y = z.imag();
  if (!isfinite(x) || !isfinite(y)) {
    std::complex<T> r = std::tanh(std::complex<T>(x, y));
    return complex<T>(r.real(), r.imag());
  }
  if (fabs(x) > 20) return complex<T>(copysign((T)1, x), 4 * ::sin(y) * ::cos(y) * ::exp(-2 * fabs(x)));
  T sx = ::sinh(x), cx = ::cosh(x), sy = ::sin(y), cy = ::cos(y);
  T d = sx * sx + cy * cy;
  return complex<T>(sx * cx / d, sy * cy / d);
}

/* sqrt and the inverse functions are our own: libstdc++'s generic formulas
 * (what clang uses on the device) put results on the wrong side of branch
 * cuts for signed zeros and lose small values, e.g. asinh(+0 - 3.5i) got the
 * real part's sign wrong and acosh(0) was 4e-16 + i pi/2. These follow C99's
 * signed-zero rules and Kahan's forms ("Branch cuts for complex elementary
 * functions", 1987), built on a csqrt that honours the sign of zero. Checked
 * on the host against glibc over a grid of finite and special values (see
 * docs/cuda.md); not yet on AMD hardware. */
template <class T>
TCX_HD complex<T> sqrt(const complex<T> &z) {
  T x = z.real(), y = z.imag();
  if (isinf(y)) return complex<T>((T)INFINITY, y);
  if (isnan(x)) return complex<T>(x, x);
  if (isinf(x)) {
    if (isnan(y)) return x > 0 ? complex<T>(x, y) : complex<T>(y, (T)INFINITY);
    return x > 0 ? complex<T>(x, copysign((T)0, y)) : complex<T>((T)0, copysign((T)INFINITY, y));
  }
  if (isnan(y)) return complex<T>(y, y);
  if (x == 0 && y == 0) return complex<T>((T)0, y);
  T s = 1; /* scale huge values down by 4 (the root by 2) so x + |z| cannot overflow */
  if (fabs(x) > (T)1e100 || fabs(y) > (T)1e100) {
    x *= (T)0.25;
    y *= (T)0.25;
    s = 2;
  }
  T t = ::sqrt((fabs(x) + hypot(x, y)) * (T)0.5);
  if (x >= 0) return complex<T>(s * t, s * (y / (2 * t)));
  return complex<T>(s * (fabs(y) / (2 * t)), s * copysign(t, y));
}

/* asin: re = atan(x / re(sqrt(1-z) sqrt(1+z))), im = asinh(im(conj(sqrt(1-z)) sqrt(1+z))). */
template <class T>
TCX_HD complex<T> asin(const complex<T> &z) {
  if (isnan(z.real()) || isnan(z.imag()) || isinf(z.real()) || isinf(z.imag())) {
    std::complex<T> r = std::asin(std::complex<T>(z.real(), z.imag()));
    return complex<T>(r.real(), r.imag());
  }
  complex<T> a = sqrt(complex<T>(1 - z.real(), -z.imag())), b = sqrt(complex<T>(1 + z.real(), z.imag()));
  T re = atan2(z.real(), a.real() * b.real() - a.imag() * b.imag());
  T im = ::asinh(a.real() * b.imag() - a.imag() * b.real());
  return complex<T>(re, im);
}
/* acos: re = 2 atan2(re sqrt(1-z), re sqrt(1+z)), im = asinh(im(conj(sqrt(1+z)) sqrt(1-z))). */
template <class T>
TCX_HD complex<T> acos(const complex<T> &z) {
  if (isnan(z.real()) || isnan(z.imag()) || isinf(z.real()) || isinf(z.imag())) {
    std::complex<T> r = std::acos(std::complex<T>(z.real(), z.imag()));
    return complex<T>(r.real(), r.imag());
  }
  complex<T> a = sqrt(complex<T>(1 - z.real(), -z.imag())), b = sqrt(complex<T>(1 + z.real(), z.imag()));
  T re = 2 * atan2(a.real(), b.real());
  T im = ::asinh(b.real() * a.imag() - b.imag() * a.real());
  return complex<T>(re, im);
}
/* asinh(z) = -i asin(iz). */
template <class T>
TCX_HD complex<T> asinh(const complex<T> &z) {
  complex<T> w = asin(complex<T>(-z.imag(), z.real()));
  return complex<T>(w.imag(), -w.real());
}
/* acosh: re = asinh(re(conj(sqrt(z-1)) sqrt(z+1))), im = 2 atan2(im sqrt(z-1), re sqrt(z+1)). */
template <class T>
TCX_HD complex<T> acosh(const complex<T> &z) {
  if (isnan(z.real()) || isnan(z.imag()) || isinf(z.real()) || isinf(z.imag())) {
    std::complex<T> r = std::acosh(std::complex<T>(z.real(), z.imag()));
    return complex<T>(r.real(), r.imag());
  }
  complex<T> a = sqrt(complex<T>(z.real() - 1, z.imag())), b = sqrt(complex<T>(z.real() + 1, z.imag()));
  T re = ::asinh(a.real() * b.real() + a.imag() * b.imag());
  T im = 2 * atan2(a.imag(), b.real());
  return complex<T>(re, im);
}
/* atanh: re = log1p(4x / ((1-x)^2 + y^2)) / 4, im = atan2(2y, (1-x)(1+x) - y^2) / 2;
 * huge |z|: re = x / |z|^2, im = +-pi/2 (the formula would overflow). */
template <class T>
TCX_HD complex<T> atanh(const complex<T> &z) {
  T x = z.real(), y = z.imag();
  if (isnan(x) || isnan(y) || isinf(x) || isinf(y)) {
    std::complex<T> r = std::atanh(std::complex<T>(x, y));
    return complex<T>(r.real(), r.imag());
  }
  const T half_pi = (T)1.5707963267948966192313216916397514;
  if (fabs(x) > (T)1e100 || fabs(y) > (T)1e100) {
    T m = fabs(x) > fabs(y) ? fabs(x) : fabs(y), xs = x / m, ys = y / m;
    return complex<T>(xs / (xs * xs + ys * ys) / m, copysign(half_pi, y));
  }
  T q = 4 * x / ((1 - x) * (1 - x) + y * y);
  /* near z = +-1 the quotient overflows: the same value from two logs */
  T re = isfinite(q) && q > (T)-0.5 ? (T)0.25 * ::log1p(q) : (T)0.5 * (::log(hypot(1 + x, y)) - ::log(hypot(1 - x, y)));
  T im = (T)0.5 * atan2(2 * y, (1 - x) * (1 + x) - y * y);
  return complex<T>(re, im);
}
/* atan(z) = -i atanh(iz). */
template <class T>
TCX_HD complex<T> atan(const complex<T> &z) {
  complex<T> w = atanh(complex<T>(-z.imag(), z.real()));
  return complex<T>(w.imag(), -w.real());
}
#undef TCX_STD1
#undef TCX_HD

} /* namespace tcx */
#endif /* TC_HIP || TC_SIM */

#endif /* TABI_TC_PORT_COMPLEX_H */
