#pragma once
// Which request paths the HTTP server answers with a file from web/: the dashboard's own files, by an
// allow-list of shapes rather than a list of what to hide. web/ also holds package files, node_modules and
// browser tests; a deny-list of prefixes was bypassed by spelling the same file differently (`//package.json`,
// `/./package.json`, an encoded slash).
#include <string_view>

namespace gammalab {

// `path` is the request's path after percent-decoding (httplib's Request::path). True for "/" (index.html),
// "/NAME.html|js|css" (a file at web/'s top level) and "/vendor/uplot/NAME.js|css" (the uPlot package's
// dist/), where NAME is letters, digits, '-', '_' and inner dots: no slash, no empty or dot segment, no
// leading dot. Anything else is not a dashboard file.
bool is_dashboard_file(std::string_view path);

}  // namespace gammalab
