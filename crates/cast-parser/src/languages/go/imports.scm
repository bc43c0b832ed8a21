; Go imports: the package path, its local name, `.` (every exported name) and `_`.

(import_spec !name path: (_) @import.module) @import
(import_spec name: (package_identifier) @import.alias path: (_) @import.module) @import
(import_spec name: (blank_identifier) @import.alias path: (_) @import.module) @import
(import_spec name: (dot) @import.star path: (_) @import.module) @import
