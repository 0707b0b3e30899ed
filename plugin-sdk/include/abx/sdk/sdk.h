// Everything a plugin author includes: #include "abx/sdk/sdk.h".
#pragma once

#include "abx/sdk/abi.h"
#include "abx/sdk/declare_plugin.h"
#include "abx/sdk/host_context.h"
#include "abx/sdk/http.h"
#include "abx/sdk/http_error.h"
#include "abx/sdk/json.h"
#include "abx/sdk/metrics.h"
#include "abx/sdk/plugin.h"
#include "abx/sdk/random.h"
#include "abx/sdk/route_table.h"
#include "abx/sdk/status.h"
#include "abx/sdk/subprocess.h"
