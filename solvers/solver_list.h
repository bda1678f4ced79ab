// SPDX-License-Identifier: MIT
// The built-in solvers, one line each, in registration order (the first is the default).
// Each solver is one file in solvers/ whose only exported symbol is its vtable.
// clang-format off
CN_SOLVER( cn_pgsSolver )
CN_SOLVER( cn_psorSolver )
CN_SOLVER( cn_pgjSolver )
CN_SOLVER( cn_lemkeSolver )
CN_SOLVER( cn_bbpgdSolver )
CN_SOLVER( cn_relcpSolver )
CN_SOLVER( cn_pgsSmSolver )
CN_SOLVER( cn_newtonMinmapSolver )
CN_SOLVER( cn_newtonFbSolver )
CN_SOLVER( cn_ipmSolver )
CN_SOLVER( cn_amgsSolver )
#ifdef CN_HAS_PETSC
CN_SOLVER( cn_taoSolver )
#endif
// clang-format on
