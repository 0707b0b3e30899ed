// GET /audit/recent (group core, scope audit:read): the newest records of
// the audit log, as the kernel keeps them in its AuditRing.
#pragma once

#include "abx/sdk/routes.h"
#include "pipeline/audit_ring.h"

namespace abx::kernel {

/** The route; @p ring must outlive it. */
sdk::RouteSpec auditRecentRoute(const AuditRing& ring);

}  // namespace abx::kernel
