// See read_ahead.h for the contract.
#include "metrics/read_ahead.h"

#include <cerrno>
#include <utility>

namespace kubeon::metrics::internal {

ReadAhead::ReadAhead(size_t chunk_bytes, Fill fill, const std::atomic<bool>* stop, size_t buffers,
                     Prepare prepare)
    : fill_(std::move(fill)), prepare_(std::move(prepare)), stop_(stop), buffers_(buffers) {
  for (Buffer& b : buffers_) {
    b.bytes.resize(chunk_bytes);
    free_.push_back(&b);
  }
  thread_ = std::thread([this] { Run(); });
}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void ReadAhead::Run() {
  while (true) {
    Buffer* b = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [this] { return cancelled_ || !free_.empty(); });
      if (cancelled_) return;
      b = free_.front();
      free_.pop_front();
    }
    int error = 0;
    ssize_t got = 0;
    if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
      error = ECANCELED;
    } else {
      got = fill_(b->bytes);
      if (got < 0) error = errno != 0 ? errno : EIO;
      if (got > 0 && prepare_) {
        prepare_(std::string_view(b->bytes.data(), static_cast<size_t>(got)),
                 static_cast<size_t>(b - buffers_.data()), consumer_waiting_.load(std::memory_order_relaxed));
      }
    }
    bool end = error != 0 || static_cast<size_t>(got) < b->bytes.size();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (got > 0) {
        b->size = static_cast<size_t>(got);
        full_.push_back(b);
      } else {
        free_.push_back(b);
      }
      error_ = error;
      ended_ = end;
    }
    changed_.notify_all();
    if (end) return;
  }
}

std::string_view ReadAhead::Next() {
  std::unique_lock<std::mutex> lock(mu_);
  if (current_ != nullptr) {
    free_.push_back(current_);
    current_ = nullptr;
    changed_.notify_all();
  }
  if (!ended_ && full_.empty()) {
    consumer_waiting_.store(true, std::memory_order_relaxed);
    changed_.wait(lock, [this] { return ended_ || !full_.empty(); });
    consumer_waiting_.store(false, std::memory_order_relaxed);
  }
  if (full_.empty()) return {};
  current_ = full_.front();
  full_.pop_front();
  return std::string_view(current_->bytes.data(), current_->size);
}

int ReadAhead::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace kubeon::metrics::internal
