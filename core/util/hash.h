// Fast non-cryptographic 64-bit hashing for content keys (constants, inference cache).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ls {

/// 64-bit hash of a byte range (multiply-xorshift over 8-byte words; good avalanche, not
/// cryptographic). Equal inputs give equal hashes on every platform of the same endianness.
/// Inputs of kHashWideMin bytes or more (constant blobs) are first folded 64 bytes at a time
/// into eight independent accumulators, each adding lo32 * hi32 of the word xor a key that
/// changes with every 64-byte stripe (so stripe order matters), plus the word: 32x32-bit
/// multiplies vectorise with plain SSE2, ~2.4x the old word-by-word chain on 16 MB. Shorter
/// inputs (names, shapes, keys) hash word by word. Not collision-resistant against crafted
/// input: ConstantStore confirms a hash hit by comparing bytes.
inline constexpr size_t kHashWideMin = 256;
inline uint64_t hashBytes(const void* data, size_t len, uint64_t seed = 0x9E3779B97F4A7C15ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  constexpr uint64_t kMul = 0xbf58476d1ce4e5b9ull;
  uint64_t h = seed ^ (len * 0x94d049bb133111ebull);
  size_t i = 0;
  if (len >= kHashWideMin) {
    uint64_t acc[8], key[8];
    for (int k = 0; k < 8; ++k) acc[k] = h + uint64_t(k) * 0x9E3779B97F4A7C15ull, key[k] = (h ^ kMul) * uint64_t(2 * k + 1);
    for (; i + 64 <= len; i += 64) {
      for (int k = 0; k < 8; ++k) {
        uint64_t w;
        std::memcpy(&w, p + i + 8 * size_t(k), 8);
        const uint64_t d = w ^ key[k];
        acc[k] += (d & 0xffffffffull) * (d >> 32) + w;
        key[k] += 0x9E3779B97F4A7C15ull;
      }
    }
    for (uint64_t a : acc) {
      h = (h ^ (a * 0x94d049bb133111ebull)) * 0x9E3779B97F4A7C15ull;
      h ^= h >> 31;
    }
  }
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    w *= kMul;
    w ^= w >> 31;
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  for (size_t k = 0; i < len; ++i, ++k) tail |= uint64_t(p[i]) << (8 * k);
  h = (h ^ (tail * kMul)) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  h ^= h >> 32;
  return h;
}

inline uint64_t hashString(std::string_view s, uint64_t seed = 0x9E3779B97F4A7C15ull) {
  return hashBytes(s.data(), s.size(), seed);
}

/// Hash of a short in-memory key (node and op names, for FlatViewMap and op interning): whole
/// 8-byte loads, the last one overlapping the one before instead of a byte loop for the tail,
/// and one 64x64->128-bit multiply, folded, per 16 bytes. About half of hashBytes' time on
/// names of 10-40 bytes (tests/bench/passes_bench.cpp, BM_HashNames). Low bits are as mixed as
/// high ones (tables mask them). Never persisted and free to change between versions: content
/// hashes and synthesis seeds use hashBytes, whose values are fixed. Not collision-resistant.
inline uint64_t hashKey(std::string_view key) {
  const auto* p = reinterpret_cast<const unsigned char*>(key.data());
  const size_t n = key.size();
  constexpr uint64_t k0 = 0x9E3779B97F4A7C15ull, k1 = 0xbf58476d1ce4e5b9ull, k2 = 0x94d049bb133111ebull;
  auto load8 = [](const unsigned char* q) {
    uint64_t w;
    std::memcpy(&w, q, 8);
    return w;
  };
  auto load4 = [](const unsigned char* q) {
    uint32_t w;
    std::memcpy(&w, q, 4);
    return uint64_t(w);
  };
  __extension__ typedef unsigned __int128 U128;  // GCC and Clang on 64-bit targets
  auto fold = [](uint64_t a, uint64_t b) {
    const U128 r = static_cast<U128>(a) * b;
    return uint64_t(r) ^ uint64_t(r >> 64);
  };
  uint64_t seed = k0 ^ (uint64_t(n) * k2), a = 0, b = 0;
  if (n <= 16) {
    if (n >= 8) a = load8(p), b = load8(p + n - 8);
    else if (n >= 4) a = load4(p), b = load4(p + n - 4);
    else if (n > 0) a = (uint64_t(p[0]) << 16) | (uint64_t(p[n >> 1]) << 8) | p[n - 1];
  } else {
    size_t i = 0;
    for (; i + 16 < n; i += 16) seed = fold(load8(p + i) ^ k1, load8(p + i + 8) ^ seed);
    a = load8(p + n - 16), b = load8(p + n - 8);
  }
  return fold(k1 ^ uint64_t(n), fold(a ^ k1, b ^ seed) ^ k2);
}

inline uint64_t hashCombine(uint64_t a, uint64_t b) {
  a ^= b + 0x9E3779B97F4A7C15ull + (a << 6) + (a >> 2);
  return a;
}

}  // namespace ls
