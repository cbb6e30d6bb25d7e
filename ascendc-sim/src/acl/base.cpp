// src/acl/base.cpp — the data-type helpers of acl_base.h.
#include <cstring>

#include "acl/acl_base.h"

extern "C" {

float aclFloat16ToFloat(aclFloat16 value) {
  _Float16 h;
  std::memcpy(&h, &value, sizeof h);
  return float(h);
}

aclFloat16 aclFloatToFloat16(float value) {
  _Float16 h = _Float16(value);  // IEEE round to nearest even
  aclFloat16 bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

size_t aclDataTypeSize(aclDataType t) {
  switch (t) {
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: return 8;
    default: return 0;
  }
}

}  // extern "C"
