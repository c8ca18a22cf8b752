// See projected_capacity.h.
#include "model/projected_capacity.h"

#include <algorithm>

namespace kubeon::model {

size_t ProjectedCapacity(size_t size, const StreamSpan& span) {
  if (span.total == 0 || span.end <= span.first_start || span.end > span.total) return std::max<size_t>(1, 2 * size);
  const size_t count = size + 1;  // the item being added is in the span
  // count * (total - first) / (end - first), in floating point: the product
  // overflows 64 bits for no plausible stream, but costs nothing to avoid.
  const double projected = static_cast<double>(count) * static_cast<double>(span.total - span.first_start) /
                           static_cast<double>(span.end - span.first_start);
  const double with_slack = projected + projected / 16;
  const size_t floor = size + size / 2 + 1;
  const size_t ceiling = 16 * size + 16;
  if (with_slack >= static_cast<double>(ceiling)) return ceiling;
  return std::max(floor, static_cast<size_t>(with_slack));
}

}  // namespace kubeon::model
