// kernel_operator_list_tensor_intf.h — ListTensorDesc / TensorDesc: a list of GM tensors
// (data pointers with shapes) passed to a kernel as one GM buffer.
//
// Layout (CANN Ascend C API reference "ListTensorDesc", words of 8 bytes): word 0 is the
// byte offset of the pointer array from the start; then one descriptor per tensor: a
// header word (low 32 bits: dim, high 32 bits: the tensor's index) followed by dim shape
// words; then the pointer array (one word per tensor). dim 0: the list holds only
// pointers, one 0xffffffff shape word, the header's high 32 bits give the count. Otherwise
// the count is the last descriptor's index + 1. `length` (bytes) and `shapeSize` (count),
// when given, are checked against the buffer. Every word is read as a scalar GM read
// (bounds-checked against the host allocation, costed as GlobalTensor::GetValue).
// Misuse: a count or length that does not match, or an index past the list, is
// `field_out_of_range`.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernel_operator.h"

namespace ascendc_sim {
/// One 8-byte word of the list at `p` (GM scalar read).
inline uint64_t list_word(const uint64_t* p, const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  check_gm(p, 8, false, api, loc);
  gm_scalar_read(c, p, 8, api, loc);
  c.rec->scalar_access(ScalarTarget::GM, false);
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
}  // namespace ascendc_sim

namespace AscendC {

class ListTensorDesc;

template <class T>
class TensorDesc {
 public:
  TensorDesc() = default;
  ~TensorDesc() = default;
  /// Where GetDesc writes the shape (at least dim words).
  void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
  uint64_t GetDim() { return dim_; }
  uint64_t GetIndex() { return index_; }
  uint64_t GetShape(uint32_t offset) { return shape_ && offset < dim_ ? shape_[offset] : 0; }
  __gm__ T* GetDataPtr() { return data_; }
  GlobalTensor<T> GetDataObj() {
    GlobalTensor<T> g;
    g.SetGlobalBuffer(data_);
    return g;
  }

 private:
  friend class ListTensorDesc;
  uint64_t* shape_ = nullptr;
  uint64_t dim_ = 0, index_ = 0;
  T* data_ = nullptr;
};

class ListTensorDesc {
 public:
  ListTensorDesc() = default;
  ~ListTensorDesc() = default;
  ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff,
                 ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    Init(data, length, shapeSize, loc);
  }
  void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff,
            ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    const char* api = "ListTensorDesc::Init";
    base_ = static_cast<const uint64_t*>(data);
    uint64_t ptr_off = ascendc_sim::list_word(base_, api, loc);
    uint64_t head = ascendc_sim::list_word(base_ + 1, api, loc);
    dim_ = uint32_t(head & 0xffffffffu);
    desc_words_ = dim_ == 0 ? 2 : 1 + dim_;
    if (ptr_off < 8 + 8 * uint64_t(desc_words_) || ptr_off % 8) {
      ascendc_sim::fail("field_out_of_range", api, loc,
                        ascendc_sim::fmt("the pointer-array offset %llu (word 0) is not a multiple of 8 past one "
                                         "descriptor of %u words",
                                         static_cast<unsigned long long>(ptr_off), desc_words_),
                        {{"ptr_offset", double(ptr_off)}});
    }
    ptrs_ = base_ + ptr_off / 8;
    uint32_t hi = uint32_t(head >> 32);
    count_ = hi != 0 ? hi : uint32_t(ascendc_sim::list_word(ptrs_ - desc_words_, api, loc) >> 32) + 1;
    if (dim_ != 0 && uint64_t(count_) * desc_words_ * 8 + 8 != ptr_off) {
      ascendc_sim::fail("field_out_of_range", api, loc,
                        ascendc_sim::fmt("%u descriptors of %u words do not end at the pointer array (offset %llu)",
                                         count_, desc_words_, static_cast<unsigned long long>(ptr_off)),
                        {{"count", double(count_)}, {"ptr_offset", double(ptr_off)}});
    }
    if (length != 0xffffffff && shapeSize != 0xffffffff &&
        (count_ != shapeSize || uint64_t(length) != ptr_off + 8ull * count_)) {
      ascendc_sim::fail("field_out_of_range", api, loc,
                        ascendc_sim::fmt("the list holds %u pointers in %llu bytes; the caller said %u pointers in %u "
                                         "bytes",
                                         count_, static_cast<unsigned long long>(ptr_off + 8ull * count_), shapeSize,
                                         length),
                        {{"count", double(count_)}, {"shape_size", double(shapeSize)}, {"length", double(length)}});
    }
  }
  /// Number of tensors in the list.
  uint32_t GetSize() { return count_; }
  /// Data pointer of tensor `index`.
  template <class T>
  __gm__ T* GetDataPtr(uint32_t index, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    check_index(index, "ListTensorDesc::GetDataPtr", loc);
    return reinterpret_cast<T*>(uintptr_t(ascendc_sim::list_word(ptrs_ + index, "ListTensorDesc::GetDataPtr", loc)));
  }
  /// Dim, index, shape (into desc's shape address) and data pointer of tensor `index`.
  template <class T>
  void GetDesc(TensorDesc<T>& desc, uint32_t index, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    const char* api = "ListTensorDesc::GetDesc";
    check_index(index, api, loc);
    const uint64_t* d = base_ + 1 + uint64_t(dim_ == 0 ? 0 : index) * desc_words_;
    uint64_t head = ascendc_sim::list_word(d, api, loc);
    desc.dim_ = head & 0xffffffffu;
    desc.index_ = dim_ == 0 ? index : head >> 32;
    if (desc.shape_) {
      for (uint32_t i = 0; i < desc.dim_; i++) desc.shape_[i] = ascendc_sim::list_word(d + 1 + i, api, loc);
    }
    desc.data_ = GetDataPtr<T>(index, loc);
  }

 private:
  void check_index(uint32_t index, const char* api, const ascendc_sim::SrcLoc& loc) {
    if (!base_) ascendc_sim::fail("field_out_of_range", api, loc, "the ListTensorDesc was never initialized (Init)");
    if (index >= count_) {
      ascendc_sim::fail("field_out_of_range", api, loc,
                        ascendc_sim::fmt("index %u is past the %u tensors of the list", index, count_),
                        {{"index", double(index)}, {"count", double(count_)}});
    }
  }
  const uint64_t* base_ = nullptr;
  const uint64_t* ptrs_ = nullptr;
  uint32_t dim_ = 0, desc_words_ = 0, count_ = 0;
};

}  // namespace AscendC
