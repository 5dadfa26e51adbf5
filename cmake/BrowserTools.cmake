# What drives the dashboard in a browser: node, Debian's chromium (scripts/install-deps) and
# puppeteer-core in tools/node_modules. Used by tests/dashboard (the browser test) and
# bench/dashboard_fps; sets TETHER_NODE, TETHER_CHROMIUM and TETHER_BROWSER_TOOLS_FOUND.
find_program(TETHER_NODE node)
find_program(TETHER_CHROMIUM NAMES chromium chromium-browser)
if(TETHER_NODE AND TETHER_CHROMIUM
   AND EXISTS ${PROJECT_SOURCE_DIR}/tools/node_modules/puppeteer-core/package.json)
  set(TETHER_BROWSER_TOOLS_FOUND TRUE)
else()
  set(TETHER_BROWSER_TOOLS_FOUND FALSE)
endif()
