// GET /audit/recent (group core, scope audit:read): the newest records of
// the audit log, as the kernel keeps them in its AuditRing.
#pragma once

#include "abx/sdk/http.h"
#include "pipeline/audit_ring.h"

namespace abx::kernel {

/** The answer: {"records": [...newest first], "capacity"}; `limit` 1..capacity, default 50. */
sdk::Response auditRecent(const AuditRing& ring, const sdk::Request& request);

}  // namespace abx::kernel
