// The controller interface: each simulated control loop looks at the store
// and writes what it would write in a real cluster, through the same Store
// calls the API uses (so every change gets a resourceVersion and a watch
// event).
//
// Reconcile is called after every API write and on a ticker, always with the
// Simulator lock held; it must be deterministic given the store contents,
// the clock and the store's random generator.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "faults.h"
#include "meta.h"
#include "node_gpus.h"
#include "pod_logs.h"
#include "settings.h"
#include "store.h"

namespace kubeon::kubesim {

struct ControllerContext {
  Store& store;
  const Settings& settings;
  Faults& faults;
  TimePoint now;   // simulated time (Simulator::Now)
  NodeGpus& gpus;  // node GPUs and the devices pods hold
  PodLogs& logs;   // container logs (kubectl logs)
};

// Where a controller left off in the store's change history, so it can
// look only at what changed since its last run (as informers do).
class ChangeCursor {
 public:
  // Feeds every change since the last Advance() to `fn`.  Returns false
  // when the controller must look at everything instead: on its first run,
  // or when the history was compacted past the cursor.
  bool Collect(const Store& store, const Store::ChangeFn& fn) const {
    return rv_.has_value() && store.ChangesSince(*rv_, fn);
  }
  // Marks every change up to version `rv` as seen.  Controllers pass the
  // version at the start of their run, so their own writes come back to
  // them once (and a controller whose step leaves more work, such as a
  // StatefulSet replacing one pod at a time, gets to continue).
  void AdvanceTo(uint64_t rv) { rv_ = rv; }

 private:
  std::optional<uint64_t> rv_;
};

class Controller {
 public:
  virtual ~Controller() = default;
  virtual const char* name() const = 0;
  // One step toward the desired state; returns true if it wrote anything.
  // It runs again when one of its Inputs() changed since the start of its
  // last run (its own writes included) or while WaitingOnClock().
  virtual bool Reconcile(ControllerContext& ctx) = 0;
  // The store ids this controller reads.
  virtual std::vector<std::string> Inputs() const = 0;
  // True while the controller waits on the clock (a delayed step is due
  // later), so the ticker must keep calling Reconcile.
  virtual bool WaitingOnClock() const { return false; }
};

}  // namespace kubeon::kubesim
