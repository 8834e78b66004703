"""The state wing: what Flink does with a job's state when a changed job starts from it.

One engine answers every question about state, and every screen asks it:

* `savepoint`: a savepoint's `_metadata` read without Flink (its operators' states);
* `predicted`: the savepoint a version would write, in the same shape;
* `restore`: `check_restore`, the only code that applies Flink's restore rules (lookup by
  uidHash, uid or generated ID; unclaimed and empty state; max parallelism set or derived;
  parallelism above the saved max parallelism), with the reasons in words;
* `idchanges`: why an operator's ID changed between two versions, in words;
* `verdict`: the version diff's answer, the check against the older version's predicted
  savepoint; `statecheck`: the review gate's list, against the current savepoint or the
  last approved version's predicted one;
* `kinds`: which operator kinds keep which state, and the warning for those without a uid.

`compiler.rescale` asks `restore` whether a rescaled job takes its state. docs/STATE.md
describes the rules and where each screen reads them.
"""
