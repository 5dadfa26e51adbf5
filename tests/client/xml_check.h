// Well-formedness check of an XML document by a real XML parser: Debian's Python
// (/usr/bin/python3, xml.etree.ElementTree, which rejects any document that is not
// well-formed XML 1.0), run as a subprocess.
#pragma once

#include <string>

namespace tether::test {

// True iff `text` parses; otherwise `why` holds the parser's message (line and column).
bool IsWellFormedXml(const std::string& text, std::string* why);

// As above, for a file; also checks that the root element is <svg> in the SVG namespace.
bool IsWellFormedSvgFile(const std::string& path, std::string* why);

}  // namespace tether::test
