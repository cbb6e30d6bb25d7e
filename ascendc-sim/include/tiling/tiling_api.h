// tiling/tiling_api.h — the host tiling surface of CANN custom-op projects on the simulator:
// the tiling-data class macros (BEGIN_TILING_DATA_DEF, TILING_DATA_FIELD_DEF,
// TILING_DATA_FIELD_DEF_ARR, TILING_DATA_FIELD_DEF_STRUCT, END_TILING_DATA_DEF,
// REGISTER_TILING_DATA_CLASS), `ge::Shape`, and platform_ascendc.h.
//
// A tiling-data class holds its fields as members in declaration order with natural
// alignment, so SaveToBuffer writes exactly the bytes of the plain struct the kernel reads
// with GET_TILING_DATA (same field types in the same order); `set_<field>` / `get_<field>`
// access them. SaveToBuffer into a buffer smaller than the class writes nothing and returns
// false (the real one reports the overflow and writes nothing usable either).
//
// The high-level APIs' tiling helpers (SoftMax family, RmsNorm, LayerNorm, Sum, CumSum, Broadcast,
// Pad/UnPad: `Get…TmpSize`,
// `…TilingFunc`, `…TilingInfo`, the optiling tiling classes) are in tiling/hl_tiling_helpers.h,
// included at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tiling/platform/platform_ascendc.h"

namespace ascendc_sim {
/// Base of every BEGIN_TILING_DATA_DEF class (no data: the derived class's bytes are its
/// fields).
template <class D>
struct TilingDataBase {
  /// Copies the fields (GetDataSize() bytes) to `data`; false (nothing written) when
  /// `capacity` is smaller or `data` is null.
  bool SaveToBuffer(void* data, size_t capacity) const {
    if (!data || capacity < sizeof(D)) return false;
    std::memcpy(data, reinterpret_cast<const unsigned char*>(static_cast<const D*>(this)), sizeof(D));
    return true;
  }
  size_t GetDataSize() const { return sizeof(D); }
};
}  // namespace ascendc_sim

#define BEGIN_TILING_DATA_DEF(class_name) \
  class class_name : public ::ascendc_sim::TilingDataBase<class_name> { \
   public:
#define TILING_DATA_FIELD_DEF(data_type, field_name)           \
  data_type field_name = {};                                  \
  void set_##field_name(data_type v) { field_name = v; }      \
  data_type get_##field_name() const { return field_name; }
#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                 \
  arr_type field_name[arr_size] = {};                                                           \
  void set_##field_name(const arr_type* v) { std::memcpy(field_name, v, sizeof(field_name)); }   \
  arr_type* get_##field_name() { return field_name; }
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name) struct_type field_name = {};
#define END_TILING_DATA_DEF }
/// Registers a tiling-data class for an operator (framework bookkeeping; nothing to do here).
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
  static_assert(sizeof(class_name) > 0, "REGISTER_TILING_DATA_CLASS: " #class_name " is incomplete");

namespace ge {
/// A tensor shape (CANN graph-engine `ge::Shape`): dimensions as int64.
class Shape {
 public:
  Shape() = default;
  explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
  size_t GetDimNum() const { return dims_.size(); }
  /// Dimension `idx`, 0 when out of range.
  int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
  void SetDim(size_t idx, int64_t v) {
    if (idx < dims_.size()) dims_[idx] = v;
  }
  std::vector<int64_t> GetDims() const { return dims_; }
  /// Product of the dimensions (0 for a shape without dimensions).
  int64_t GetShapeSize() const {
    if (dims_.empty()) return 0;
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    return n;
  }

 private:
  std::vector<int64_t> dims_;
};
}  // namespace ge

#include "tiling/hl_tiling_helpers.h"  // SoftMax / RmsNorm / LayerNorm host tiling helpers
