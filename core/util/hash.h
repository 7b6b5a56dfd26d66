// Fast non-cryptographic 64-bit hashing for content keys (constants, inference cache).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ls {

/// 64-bit hash of a byte range (multiply-xorshift over 8-byte words; good avalanche, not
/// cryptographic). Equal inputs give equal hashes on every platform of the same endianness.
/// Inputs of kHashWideMin bytes or more (constant blobs) go through four independent lanes
/// first, so the multiplies overlap (~4x the throughput of one dependent chain); shorter
/// inputs (names, shapes, keys) hash word by word.
inline constexpr size_t kHashWideMin = 256;
inline uint64_t hashBytes(const void* data, size_t len, uint64_t seed = 0x9E3779B97F4A7C15ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  constexpr uint64_t kMul = 0xbf58476d1ce4e5b9ull;
  uint64_t h = seed ^ (len * 0x94d049bb133111ebull);
  size_t i = 0;
  if (len >= kHashWideMin) {
    uint64_t lane[4] = {h, h ^ kMul, h + 0x9E3779B97F4A7C15ull, h ^ 0xd6e8feb86659fd93ull};
    for (; i + 32 <= len; i += 32) {
      for (int k = 0; k < 4; ++k) {
        uint64_t w;
        std::memcpy(&w, p + i + 8 * size_t(k), 8);
        lane[k] = (lane[k] ^ w) * kMul;
        lane[k] ^= lane[k] >> 29;
      }
    }
    for (uint64_t l : lane) {
      h = (h ^ (l * 0x94d049bb133111ebull)) * 0x9E3779B97F4A7C15ull;
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

inline uint64_t hashCombine(uint64_t a, uint64_t b) {
  a ^= b + 0x9E3779B97F4A7C15ull + (a << 6) + (a >> 2);
  return a;
}

}  // namespace ls
