// securec.h — the bounds-checked memory and string functions of Huawei's securec library
// that host code of Ascend C samples calls (memcpy_s, memset_s, memmove_s, strcpy_s,
// strncpy_s). Semantics of C11 Annex K: on a violation nothing is copied past destMax,
// the destination is zeroed where that is safe, and a non-zero errno_t is returned
// (EINVAL: null pointer, ERANGE: count above destMax or destMax above SECUREC_MEM_MAX_LEN,
// EOVERLAP_AND_RESET: overlapping memcpy_s). EOK (0) on success.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
#ifndef SECUREC_MEM_MAX_LEN
#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#endif
#ifndef EOVERLAP_AND_RESET
#define EOVERLAP_AND_RESET (54 | 128)
#endif
typedef int errno_t;

inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
  if (!dest) return EINVAL;
  if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN) return ERANGE;
  if (count > destMax) {
    std::memset(dest, c, destMax);
    return ERANGE;
  }
  std::memset(dest, c, count);
  return EOK;
}

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
  if (!dest) return EINVAL;
  if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN) return ERANGE;
  if (!src) {
    std::memset(dest, 0, destMax);
    return EINVAL;
  }
  if (count > destMax) {
    std::memset(dest, 0, destMax);
    return ERANGE;
  }
  const auto d = reinterpret_cast<uintptr_t>(dest), s = reinterpret_cast<uintptr_t>(src);
  if (count && ((d <= s && s < d + count) || (s <= d && d < s + count))) {
    std::memset(dest, 0, destMax);
    return EOVERLAP_AND_RESET;
  }
  std::memcpy(dest, src, count);
  return EOK;
}

inline errno_t memmove_s(void* dest, size_t destMax, const void* src, size_t count) {
  if (!dest) return EINVAL;
  if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN) return ERANGE;
  if (!src) {
    std::memset(dest, 0, destMax);
    return EINVAL;
  }
  if (count > destMax) {
    std::memset(dest, 0, destMax);
    return ERANGE;
  }
  std::memmove(dest, src, count);
  return EOK;
}

inline errno_t strncpy_s(char* dest, size_t destMax, const char* src, size_t count) {
  if (!dest) return EINVAL;
  if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN) return ERANGE;
  if (!src) {
    dest[0] = '\0';
    return EINVAL;
  }
  size_t n = 0;
  while (n < count && src[n]) n++;
  if (n >= destMax) {
    dest[0] = '\0';
    return ERANGE;
  }
  std::memcpy(dest, src, n);
  dest[n] = '\0';
  return EOK;
}

inline errno_t strcpy_s(char* dest, size_t destMax, const char* src) {
  return strncpy_s(dest, destMax, src, src ? std::strlen(src) : 0);
}
