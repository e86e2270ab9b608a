// The engine's vectors handed to Python as numpy arrays, without a copy:
// the array's memory stays with the vector, which a capsule owns. For the
// bindings only.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace cloudnoise::bindings {

namespace nb = nanobind;

template <class T>
using Array = nb::ndarray<nb::numpy, T, nb::ndim<1>>;
template <class T>
using Matrix = nb::ndarray<nb::numpy, T, nb::ndim<2>>;
using I64Array = Array<int64_t>;

template <class T>
std::vector<T>* owned(std::vector<T> v, nb::capsule& owner) {
  auto holder = std::make_unique<std::vector<T>>(std::move(v));
  std::vector<T>* raw = holder.get();
  owner = nb::capsule(raw, [](void* p) noexcept { std::unique_ptr<std::vector<T>>(static_cast<std::vector<T>*>(p)); });
  holder.release();
  return raw;
}

template <class T>
Array<T> to_numpy(std::vector<T> v) {
  nb::capsule owner;
  std::vector<T>* raw = owned(std::move(v), owner);
  return Array<T>(raw->data(), {raw->size()}, owner);
}

// A row-major matrix of `cols` columns (v's size a multiple of it).
template <class T>
Matrix<T> to_numpy(std::vector<T> v, size_t cols) {
  nb::capsule owner;
  std::vector<T>* raw = owned(std::move(v), owner);
  return Matrix<T>(raw->data(), {cols == 0 ? 0 : raw->size() / cols, cols}, owner);
}

}  // namespace cloudnoise::bindings
