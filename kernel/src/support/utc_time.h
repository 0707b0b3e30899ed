// The one timestamp the server writes (log lines, audit records): RFC 3339
// in UTC with milliseconds, "2026-12-03T04:50:00.123Z" — sortable, and what
// log shippers parse.
#pragma once

#include <string>

namespace abx::kernel {

/** The current time as "YYYY-MM-DDTHH:MM:SS.mmmZ". */
std::string utcTimestamp();

}  // namespace abx::kernel
