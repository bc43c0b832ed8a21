; C# `using` directives: `using A.B;` (every type of namespace A.B), `using X = A.B;`,
; `using static A.B;` (the static members of type B).

(using_directive !name [(identifier) (qualified_name)] @import.module @import.star) @import
(using_directive name: (identifier) @import.alias [(identifier) (qualified_name)] @import.module) @import
