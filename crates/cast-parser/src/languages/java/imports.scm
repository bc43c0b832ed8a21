; Java imports: `import a.b.C;` (module a.b, name C), `import a.b.*;`, `import static a.B.m;`.

(import_declaration
  (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) . ";") @import
(import_declaration (scoped_identifier) @import.module (asterisk) @import.star) @import
(import_declaration (identifier) @import.name) @import
