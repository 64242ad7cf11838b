/* plugins/cuda/tc_port_complex.h: tcx::complex<T> and its functions, for
 * device code shared by the CUDA and ROCm plugins.
 *
 * nvcc: tcx is thrust (exactly what the CUDA plugin always used).
 * hipcc: rocThrust is absent on Debian 12 and std::complex cannot be a
 * __shared__ array element (its constructor is not trivial), so tcx::complex
 * is a plain two-field struct with a trivial default constructor; its
 * transcendental functions go through std::complex, which clang makes
 * callable on the device (libstdc++'s generic formulas: not yet checked
 * against the reference on AMD hardware, see docs/cuda.md). */
#ifndef TABI_TC_PORT_COMPLEX_H
#define TABI_TC_PORT_COMPLEX_H

#include "tc_port.h"

#ifndef TC_HIP
#include <thrust/complex.h>
namespace tcx = thrust;
#else
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
TCX_STD1(sin)
TCX_STD1(cos)
TCX_STD1(tan)
TCX_STD1(asin)
TCX_STD1(acos)
TCX_STD1(atan)
TCX_STD1(sinh)
TCX_STD1(cosh)
TCX_STD1(tanh)
TCX_STD1(asinh)
TCX_STD1(acosh)
TCX_STD1(atanh)
TCX_STD1(sqrt)
TCX_STD1(exp)
TCX_STD1(log)
#undef TCX_STD1
#undef TCX_HD

} /* namespace tcx */
#endif /* TC_HIP */

#endif /* TABI_TC_PORT_COMPLEX_H */
