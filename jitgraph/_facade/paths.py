"""The table of Theano module paths -> jitgraph objects (data; served by :mod:`.finder`).

* :data:`MODULES`: Theano-only paths with no file of their own (``jitgraph.tensor.nnet.sigm``):
  each row says which jitgraph objects the path's names are, which names it looks up in whole
  jitgraph modules, and which names jitgraph cannot provide and why (:class:`~.rows.Row`).
* :data:`ADDED`: names Theano had in a module that is a real jitgraph module (``theano.tensor``'s
  ``int32``), where the object lives in a layer above that module.
* :data:`SUBMODULE_ATTRIBUTES`: submodules reachable as attributes of their package without
  being imported first, as ``import theano`` had imported them.
* :data:`EAGER_CHILDREN`: paths imported right after their package, whose attribute keeps the
  package's own value (``theano.tensor.inc_code`` is the function, not the module).

To add a Theano path: one row here (and its test in tests/test_module_paths.py); never a file
inside an implementation package.
"""

from __future__ import annotations

from jitgraph._facade.rows import Row, names, unavailable

# Rows marked "own use" list names Theano's module imported for its own use, which scripts
# reached through it.

MODULES: dict[str, Row] = {
    # -- theano.tensor ----------------------------------------------------------------------
    "jitgraph.tensor.raw_random": Row(
        "Theano's ``theano.tensor.raw_random``: NumPy ``RandomState`` draws as graph ops "
        "(:mod:`jitgraph.random.raw`), the helpers behind draws whose parameters broadcast and "
        "the in-place rewrite of the draws.",
        star=("jitgraph.random.raw",),
        names={**names("jitgraph.random.raw_helpers", "choice_helper multinomial_helper "
                       "permutation_helper random_integers_helper"),
               **names("jitgraph.random.rewrites", "random_make_inplace"),
               **names("jitgraph.random.raw_op", "_infer_ndim_bcast=infer_ndim_bcast"),
               **names("jitgraph.rewrite.phases", "optdb"),
               # own use: Theano's module had no __all__, so `from raw_random import *` also
               # brought these (its tests use `theano` and `tensor` from there)
               "theano": "jitgraph", "tensor": "jitgraph.tensor", "gof": "jitgraph.gof",
               "opt": "jitgraph.tensor.opt", "np": "numpy", "copy": "copy", "sys": "sys",
               **names("functools", "reduce"), **names("builtins", "xrange=range")}),
    "jitgraph.tensor.shared_randomstreams": Row(
        "Theano's ``theano.tensor.shared_randomstreams`` (:mod:`jitgraph.random.streams`).",
        names={**names("jitgraph.random.streams", "RandomStreams"),
               **names("jitgraph.random.random_state",
                       "RandomStateSharedVariable randomstate_constructor"),
               **names("jitgraph.compile.sharedvalue", "SharedVariable shared "
                       "shared_constructor")}),
    "jitgraph.tensor.opt": Row(
        "``theano.tensor.opt``: the registration functions of graph rewrites "
        "(``register_canonicalize``, ...), ``local_optimizer``, ``ShapeFeature`` and the "
        "helpers Theano's rewrites imported from here -- jitgraph's objects; jitgraph's own "
        "rewrites are in :mod:`jitgraph.tensor.rewriting`.",
        names={**names("jitgraph.tensor.rewriting.dimshuffle_lift", "local_dimshuffle_lift"),
               **names("jitgraph.tensor.core.assertion", "Assert assert_op assert_")},
        unavailable=unavailable(
            "one of Theano's individual tensor rewrites; jitgraph's rewrites of the same "
            "graphs are grouped and named differently (jitgraph.tensor.rewriting) and run "
            "through optdb by tag: compile with a mode, or query optdb, instead",
            "local_add_specialize local_useless_dimshuffle_in_reshape local_merge_alloc "
            "local_greedy_distributor local_reshape_to_dimshuffle mul_canonizer "
            "local_canonicalize_alloc"),
        fallback=("jitgraph.rewrite.phases", "jitgraph.rewrite.theano_api",
                  "jitgraph.tensor.rewriting.shape", "jitgraph.rewrite", "jitgraph.tensor",
                  "jitgraph.gof")),
    "jitgraph.tensor.opt_uncanonicalize": Row(
        "``theano.tensor.opt_uncanonicalize``: the phase of rewrites undoing canonical forms "
        "(``register_uncanonicalize``) and ``local_dimshuffle_alloc``; Theano's other rewrites "
        "of that phase are not provided.",
        names={**names("jitgraph.rewrite.phases", "register_uncanonicalize"),
               **names("jitgraph.tensor.rewriting.shape", "local_dimshuffle_alloc"),
               **names("jitgraph.rewrite.context", "copy_stack_trace")}),
    "jitgraph.tensor.blas_c": Row(
        "``theano.tensor.blas_c``: ``CGemv`` and ``CGer`` are jitgraph's one ``Gemv`` and "
        "``Ger`` (:mod:`jitgraph.tensor.linalg.blas`); the C-code helpers are not available.",
        names={**names("jitgraph.tensor.linalg.blas",
                       "CGemv=Gemv CGer=Ger cgemv_inplace=gemv_inplace "
                       "cgemv_no_inplace=gemv_no_inplace cger_inplace=ger_destructive "
                       "cger_no_inplace=ger Gemv Ger gemv_inplace gemv_no_inplace ger "
                       "ger_destructive"),
               "BaseBLAS": "builtins:object"},  # Theano's mixin of C-BLAS header code
        unavailable=unavailable("C code of Theano's BLAS ops; jitgraph's Gemv and Ger are "
                                "lowered by Numba or cuBLAS",
                                "gemv_c_code ger_c_code check_force_gemv_init")),
    "jitgraph.tensor.blas_scipy": Row(
        "``theano.tensor.blas_scipy``: ``ScipyGer`` is jitgraph's one ``Ger``.",
        names=names("jitgraph.tensor.linalg.blas", "ScipyGer=Ger scipy_ger_inplace=ger_destructive "
                    "scipy_ger_no_inplace=ger Ger ger ger_destructive")),
    "jitgraph.tensor.blas_headers": Row(
        "``theano.tensor.blas_headers``: the C headers of Theano's BLAS ops (not available).",
        unavailable=unavailable("C headers of Theano's BLAS ops; jitgraph calls BLAS through "
                                "Numba/SciPy and cuBLAS",
                                "blas_header_text blas_header_version cblas_header_text "
                                "detect_macos_sdot_bug mkl_threads_text openblas_threads_text")),
    "jitgraph.tensor.inc_code": Row(
        "``theano.tensor.inc_code``: ``inc_code()`` raises ``CCodeUnavailableError``.",
        names=names("jitgraph.graph.c_code", "inc_code CCodeUnavailableError")),
    "jitgraph.tensor.elemwise_cgen": Row(
        "``theano.tensor.elemwise_cgen``: Theano's C loop generator (not available).",
        unavailable=unavailable("Theano's C loop generator for Elemwise; jitgraph generates "
                                "Numba kernels (jitgraph.backend_cpu.codegen.elemwise)",
                                "make_alloc make_checks make_declare make_loop "
                                "make_loop_careduce make_reordered_loop")),
    "jitgraph.tensor.signal": Row(
        "``theano.tensor.signal``: pooling (``pool``) and the signal-processing ``conv2d`` "
        "(``conv``).",
        names={"conv": "jitgraph.tensor.signal.conv", "pool": "jitgraph.tensor.signal.pool"}),
    "jitgraph.tensor.signal.conv": Row(
        "``theano.tensor.signal.conv``: ``conv2d`` of 2-d/3-d images and filters.",
        names=names("jitgraph.tensor.convolution.conv_legacy", "conv2d=signal_conv2d")),
    "jitgraph.tensor.signal.downsample": Row(import_error=(
        "theano.tensor.signal.downsample was removed in Theano 1.0: use "
        "theano.tensor.signal.pool.pool_2d(input, ws=(2, 2), ignore_border=True) in place of "
        "downsample.max_pool_2d(input, ds=(2, 2), ignore_border=True)")),
    "jitgraph.tensor.signal.pool": Row(
        "``theano.tensor.signal.pool`` (:mod:`jitgraph.tensor.convolution.pool`).",
        names={**names("jitgraph.tensor.convolution.pool",
                       "AveragePoolGrad DownsampleFactorMaxGradGrad "
                       "MaxPoolGrad MaxPoolRop Pool PoolGrad max_pool_2d_same_size pool_2d "
                       "pool_3d PoolingMode_t"),
               # own use
               **names("jitgraph.graph.basic", "Apply Variable"),
               **names("jitgraph.graph.gradient_types", "DisconnectedType"),
               **names("jitgraph.graph.enum_type", "EnumList"),
               **names("jitgraph.graph.openmp_op", "OpenMPOp"),
               **names("jitgraph.graph.c_code", "ParamsType"),
               **names("jitgraph.scalar.type", "bool_t=bool_")}),
    # -- theano.tensor.nnet -------------------------------------------------------------------
    "jitgraph.tensor.nnet.nnet": Row(
        "``theano.tensor.nnet.nnet``: where Theano 1.0 defined softmax, the cross-entropies, "
        "relu, elu, ... -- the objects of :mod:`jitgraph.tensor.nnet`.",
        fallback=("jitgraph.tensor.nnet", "jitgraph.tensor")),
    "jitgraph.tensor.nnet.sigm": Row(
        "``theano.tensor.nnet.sigm``: sigmoid, softplus, hard_sigmoid, ultra_fast_sigmoid (the "
        "objects of :mod:`jitgraph.tensor.nnet`) and Theano's names of the scalar ops.",
        names={**names("jitgraph._facade.objects",
                        "scalar_softplus ScalarSigmoid ScalarSoftplus"),
               **names("jitgraph.tensor.rewriting.mul_tree",
                       "compute_mul is_1pexp parse_mul_tree perform_sigm_times_exp "
                       "simplify_mul"),
               **names("jitgraph.tensor.rewriting.sigmoid",
                       "register_local_1msigmoid local_sigm_times_exp local_hard_sigmoid")},
        fallback=("jitgraph.tensor.nnet", "jitgraph.tensor")),
    "jitgraph.tensor.nnet.conv": Row(
        "``theano.tensor.nnet.conv``: the legacy ``ConvOp`` and its ``conv2d``.",
        names={**names("jitgraph.tensor.convolution.conv_legacy", "ConvOp conv2d"),
               **names("jitgraph._facade.objects", "imported_scipy_signal"),
               **names("jitgraph.tensor.convolution.conv_shapes",
                       "get_conv_output_shape get_conv_shape_1axis")}),
    "jitgraph.tensor.nnet.corr": Row(
        "``theano.tensor.nnet.corr``: the im2col + BLAS correlation ops.",
        names=names("jitgraph.tensor.convolution.corr",
                    "CorrMM CorrMM_gradInputs CorrMM_gradWeights")),
    "jitgraph.tensor.nnet.corr3d": Row(
        "``theano.tensor.nnet.corr3d``: the 3-d im2col + BLAS correlation ops.",
        names=names("jitgraph.tensor.convolution.corr",
                    "Corr3dMM Corr3dMM_gradInputs Corr3dMM_gradWeights")),
    "jitgraph.tensor.nnet.neighbours": Row(
        "``theano.tensor.nnet.neighbours`` (:mod:`jitgraph.tensor.convolution.neighbours`).",
        names={**names("jitgraph.tensor.convolution.neighbours",
                       "Images2Neibs Neibs2ImagesAdd images2neibs neibs2images"),
               **names("jitgraph.graph.basic", "Apply"),  # own use
               **names("jitgraph.graph.enum_type", "EnumList"),
               **names("jitgraph.graph.op", "Op"),
               **names("jitgraph.gradient", "grad_not_implemented grad_undefined")}),
    "jitgraph.tensor.nnet.abstract_conv": Row(
        "``theano.tensor.nnet.abstract_conv``: the abstract convolution ops, their functions and "
        "the shape helpers.",
        names={**names("jitgraph.tensor.convolution.conv", "AbstractConv AbstractConv2d "
                       "AbstractConv2d_gradInputs AbstractConv2d_gradWeights AbstractConv3d "
                       "AbstractConv3d_gradInputs AbstractConv3d_gradWeights "
                       "AbstractConv_gradInputs AbstractConv_gradWeights BaseAbstractConv "
                       "imported_scipy_signal"),
               **names("jitgraph.tensor.convolution.conv_functions", "conv2d=abstract_conv2d "
                       "causal_conv1d conv3d conv2d_grad_wrt_inputs conv2d_grad_wrt_weights "
                       "conv3d_grad_wrt_inputs conv3d_grad_wrt_weights separable_conv2d "
                       "separable_conv3d"),
               **names("jitgraph.tensor.convolution.upsampling",
                       "bilinear_kernel_1D bilinear_kernel_2D "
                       "bilinear_upsampling frac_bilinear_upsampling"),
               **names("jitgraph.tensor.convolution.conv_shapes", "assert_conv_shape assert_shape "
                       "border_mode_to_pad check_conv_gradinputs_shape "
                       "get_conv_gradinputs_shape get_conv_gradinputs_shape_1axis "
                       "get_conv_gradweights_shape get_conv_gradweights_shape_1axis "
                       "get_conv_output_shape get_conv_shape_1axis")}),
    "jitgraph.tensor.nnet.bn": Row(
        "``theano.tensor.nnet.bn``: batch normalization as graphs "
        "(:mod:`jitgraph.tensor.neural.batchnorm`) and as single ops with their expanding rewrites "
        "(:mod:`jitgraph.tensor.neural.batchnorm_ops`).",
        names={**names("jitgraph.tensor.neural.batchnorm", "batch_normalization "
                       "batch_normalization_test batch_normalization_train"),
               **names("jitgraph.tensor.neural.batchnorm_ops", "AbstractBatchNormInference "
                       "AbstractBatchNormTrain AbstractBatchNormTrainGrad bn_groupopt "
                       "local_abstract_batch_norm_inference local_abstract_batch_norm_train "
                       "local_abstract_batch_norm_train_grad"),
               **names("jitgraph._facade.objects", "BNComposite"),
               # own use
               **names("jitgraph.graph.basic", "Apply"),
               **names("jitgraph.graph.op", "Op"),
               **names("jitgraph.scalar.composite", "Composite"),
               **names("jitgraph.tensor.core.type", "TensorType"),
               **names("jitgraph.scalar", "add mul sub true_div"),
               **names("jitgraph.scalar.var", "as_common_dtype"),
               **names("jitgraph.tensor.core.conversion", "as_tensor_variable"),
               **names("jitgraph.rewrite.context", "copy_stack_trace"),
               **names("jitgraph.rewrite.theano_api",
                       "local_optimizer register_specialize_device")}),
    # -- theano.scalar ------------------------------------------------------------------------
    "jitgraph.scalar.basic": Row(
        "``theano.scalar.basic``: where Theano 1.0 defined the scalar types and ops -- the "
        "objects of :mod:`jitgraph.scalar`, and the NumPy rounding helper Theano's tests "
        "compare ``round_half_away_from_zero`` with.",
        names=names("jitgraph.tensor.elementwise.scalar_ops",
                    "round_half_away_from_zero_vec=_round_half_away"),
        fallback=("jitgraph.scalar",)),
    "jitgraph.scalar.basic_scipy": Row(
        "``theano.scalar.basic_scipy``: the SciPy-backed scalar ops (``Erfinv``, ``GammaLn``, "
        "``Psi``, ...; PyMC3 builds ``GammaLn(upgrade_to_float, name=...)`` from here) -- the "
        "objects of :mod:`jitgraph.scalar`.", fallback=("jitgraph.scalar",)),
    # -- theano.gof -----------------------------------------------------------------------------
    "jitgraph.gof.fg": Row(
        "``theano.gof.fg``: FunctionGraph (:mod:`jitgraph.graph.fg`).",
        names=names("jitgraph.graph.fg",
                    "Feature FunctionGraph InconsistencyError MissingInputError")),
    "jitgraph.gof.op": Row(
        "``theano.gof.op``: the Op base classes.",
        names={**names("jitgraph.graph.op", "Op PureOp=Op"),
               **names("jitgraph.graph.openmp_op", "OpenMPOp"), "utils": "jitgraph.gof.utils",
               **names("jitgraph.graph.test_value", "get_test_value"),
               **names("jitgraph.gradient.utils", "get_debug_values")}),
    "jitgraph.gof.type": Row(
        "``theano.gof.type``: the Type base class and the generic type.",
        names=names("jitgraph.graph.type", "Type Generic=GenericType generic")),
    "jitgraph.gof.utils": Row(
        "``theano.gof.utils`` (:mod:`jitgraph.graph.utils`).",
        names=names("jitgraph.graph.utils", "MethodNotDefined difference flatten "
                    "hash_from_code hash_from_file hashtype key_to_cmp object2 remove uniq "
                    "unique give_variables_names")),
    "jitgraph.gof.opt": Row(
        "``theano.gof.opt``: Theano's ``local_optimizer`` decorator and ``LocalOptimizer`` (a "
        "rewrite written as ``f(node)``), with the graph-rewriting helpers of "
        ":mod:`jitgraph.rewrite`; the optimizer classes under Theano's names "
        "(:mod:`jitgraph.rewrite.theano_optimizers`).",
        names={**names("jitgraph.config", "config"),
               "theano": "jitgraph", "logging": "logging"},
        unavailable=unavailable("a helper Theano's own ops used to rewrite a graph before it "
                                "is in a FunctionGraph; jitgraph rewrites only FunctionGraphs "
                                "(build one, then run in2out(...).optimize(fgraph))",
                                "pre_constant_merge pre_greedy_local_optimizer"),
        fallback=("jitgraph.rewrite.theano_optimizers", "jitgraph.rewrite.theano_api",
                  "jitgraph.rewrite")),
    "jitgraph.gof.optdb": Row(
        "``theano.gof.optdb``: the rewrite databases (:mod:`jitgraph.rewrite.db`); ``Query`` is a "
        "``RewriteDatabaseQuery`` whose ``position_cutoff`` may be assigned, ``DB`` the base "
        "class.",
        names={**names("jitgraph.rewrite.db", "DB=RewriteDatabase SequenceDB EquilibriumDB "
                       "LocalGroupDB RewriteDatabase"),
               **names("jitgraph.rewrite.theano_optimizers", "Query")}),
    "jitgraph.gof.destroyhandler": Row(
        "``theano.gof.destroyhandler``: the DestroyHandler feature keeping in-place operations "
        "safe.",
        names={**names("jitgraph.rewrite.destroyhandler", "DestroyHandler AddDestroyHandler "
                       "ensure_destroy_handler get_destroy_handler"),
               **names("jitgraph.graph.fg", "InconsistencyError"),
               **names("jitgraph.misc.ordered_set", "OrderedSet")}),
    "jitgraph.gof.null_type": Row(
        "``theano.gof.null_type``: the type of an undefined gradient.",
        names=names("jitgraph.graph.gradient_types", "NullType null_type")),
    "jitgraph.gof.params_type": Row(
        "``theano.gof.params_type``: ``ParamsType`` and the ``EnumType`` often combined with it.",
        names={**names("jitgraph.graph.c_code", "ParamsType"),
               **names("jitgraph.graph.enum_type", "EnumType EnumList")},
        unavailable=unavailable("the values of a ParamsType, which describes C-code op "
                                "parameters; jitgraph ops take Python parameters (their "
                                "__props__)", "Params")),
    "jitgraph.gof.cutils": Row(
        "``theano.gof.cutils``: a C extension of Theano's that ran C thunks (not available).",
        unavailable=unavailable("a C extension of Theano's, compiled with g++; jitgraph runs "
                                "no C thunks", "run_cthunk compile_cutils")),
    "jitgraph.gof.lazylinker_c": Row(
        "``theano.gof.lazylinker_c``: the C implementation of Theano's lazy VM (not available).",
        unavailable=unavailable("the C extension of Theano's lazy VM, compiled with g++; "
                                "jitgraph's 'cvm' linker is not built from it",
                                "CLazyLinker get_version")),
    "jitgraph.gof.link": Row(
        "``theano.gof.link``: the linker classes and ``Container``; every jitgraph linker runs "
        "nodes from Python, so ``LocalLinker`` is ``Linker``.",
        names={**names("jitgraph.graph.container", "Container"),
               **names("jitgraph.compile.linker", "Linker LocalLinker=Linker PerformLinker"),
               **names("jitgraph.compile.monitormode", "WrapLinker")},
        unavailable=unavailable("a helper inside Theano's linkers; jitgraph's linkers build a "
                                "program with jitgraph.compile.linker.make_program",
                                "map_storage streamline gc_helper raise_with_op "
                                "add_clear_storage WrapLinkerMany")),
    "jitgraph.gof.vm": Row(
        "``theano.gof.vm``: ``VM_Linker`` is jitgraph's ``VMLinker``; Theano's thunk runners "
        "are not available.",
        names=names("jitgraph.compile.linker", "VM_Linker=VMLinker VMLinker"),
        unavailable=unavailable("one of the thunk runners inside Theano's VM linker; "
                                "jitgraph's VM_Linker (jitgraph.compile.linker.VMLinker) runs "
                                "a compiled program instead",
                                "VM Loop LoopGC Stack calculate_reallocate_info")),
    # -- theano.scan_module ---------------------------------------------------------------------
    "jitgraph.scan_module.scan": Row(
        "``theano.scan_module.scan``: the ``scan`` function (:mod:`jitgraph.scan.builder`).",
        names={**names("jitgraph.scan.builder", "scan"),
               **names("jitgraph.scan.updates", "OrderedUpdates"),
               **names("collections", "OrderedDict"),
               **names("jitgraph.compile.sharedvalue", "SharedVariable"),
               **names("jitgraph.config", "config")}),
    "jitgraph.scan_module.scan_checkpoints": Row(
        "``theano.scan_module.scan_checkpoints`` (:mod:`jitgraph.scan.checkpoints`).",
        names=names("jitgraph.scan.checkpoints", "scan_checkpoints")),
    "jitgraph.scan_module.scan_op": Row(
        "``theano.scan_module.scan_op``: the :class:`Scan` op (:mod:`jitgraph.scan.op`; its "
        "inner graph is a :class:`~jitgraph.scan.info.ScanInfo` and a function graph, not "
        "Theano's lists).",
        names={**names("jitgraph.scan.op", "Scan"), **names("jitgraph.scan.info", "ScanInfo"),
               **names("jitgraph.compile.profiling_scan", "ScanProfileStats")}),
    "jitgraph.scan_module.scan_opt": Row(
        "``theano.scan_module.scan_opt``: the rewrites of scan loops "
        "(:mod:`jitgraph.scan.rewrites`, :mod:`jitgraph.scan.merge`); Theano's optimizer "
        "classes (``ScanSaveMem``, ...) have no one-to-one counterpart.",
        fallback=("jitgraph.scan.rewrites", "jitgraph.scan.merge")),
    "jitgraph.scan_module.scan_views": Row(
        "``theano.scan_module.scan_views``: ``map``, ``reduce``, ``foldl``, ``foldr``.",
        names={**names("jitgraph.scan.views", "map reduce foldl foldr"),
               **names("jitgraph.scan.builder", "scan")}),
    # -- theano.sandbox -------------------------------------------------------------------------
    "jitgraph.sandbox.softsign": Row(
        "``theano.sandbox.softsign``: moved by Theano to ``theano.tensor.nnet``.",
        names=names("jitgraph.tensor.nnet", "softsign")),
    "jitgraph.sandbox.solve": Row(
        "``theano.sandbox.solve``: moved by Theano to ``theano.tensor.slinalg``.",
        names=names("jitgraph.tensor.linalg.slinalg", "solve")),
    "jitgraph.sandbox.neighbours": Row(
        "``theano.sandbox.neighbours``: moved by Theano to ``theano.tensor.nnet.neighbours``.",
        names=names("jitgraph.tensor.convolution.neighbours",
                    "Images2Neibs images2neibs neibs2images")),
    "jitgraph.sandbox.blocksparse": Row(
        "``theano.sandbox.blocksparse``: moved by Theano to ``theano.tensor.nnet.blocksparse``.",
        names=names("jitgraph.tensor.nnet.blocksparse", "SparseBlockGemv SparseBlockOuter "
                    "sparse_block_dot sparse_block_gemv sparse_block_gemv_inplace "
                    "sparse_block_outer sparse_block_outer_inplace")),
    "jitgraph.sandbox.conv": Row(
        "``theano.sandbox.conv``: empty since Theano moved its convolutions to "
        "``theano.tensor.nnet.conv``; importing it warns, as in Theano.",
        warning="jitgraph.sandbox.conv no longer provides conv: it moved to "
                "jitgraph.tensor.nnet.conv (as theano.sandbox.conv did to "
                "theano.tensor.nnet.conv)"),
    "jitgraph.sandbox.cuda": Row(import_error=(
        "theano.sandbox.cuda is the old GPU back end, removed in Theano 1.0 and absent from "
        "jitgraph. jitgraph runs graphs on an NVIDIA GPU through CuPy: install jitgraph[cuda12] "
        "or jitgraph[cuda13] and set the flag device=cuda (THEANO_FLAGS=device=cuda0).")),
    "jitgraph.sandbox.rng_mrg": Row(
        "Theano's ``theano.sandbox.rng_mrg``: MRG31k3p streams, the ``mrg_uniform`` op, the "
        "step-by-step helpers and the in-place rewrite of the draws (:mod:`jitgraph.random`).",
        names={**names("jitgraph.random.mrg_streams", "MRG_RandomStreams guess_n_streams"),
               **names("jitgraph.random.mrg_op", "mrg_uniform=MRGUniform "
                       "mrg_uniform_base=MRGUniform"),
               **names("jitgraph.tensor.core.grad_ops", "undefined_grad"),
               **names("jitgraph.random.mrg31k3p", "M1 M2"),
               **names("jitgraph.random.mrg_steps", "DotModulo ff_2p134 ff_2p72 matVecModM "
                       "multMatVect mrg_next_value A1p72 A1p134 A2p72 A2p134 MASK12 MASK13 "
                       "MASK2 MULT2 NORM np_int32_vals"),
               **names("jitgraph.random.rewrites", "mrg_random_make_inplace"),
               # own use
               **names("jitgraph.graph.basic", "Apply Variable"),
               **names("jitgraph.graph.op", "Op"),
               **names("jitgraph.graph.c_code", "ParamsType"),
               **names("jitgraph.tensor.core.type", "TensorType"),
               **names("jitgraph.tensor.core.conversion", "as_tensor_variable"),
               **names("jitgraph.scalar.type", "bool_t=bool_ int_t=int32"),
               **names("jitgraph.tensor.elementwise.math", "cast"),
               **names("jitgraph.config", "config"),
               **names("jitgraph.compile.function", "function"),
               **names("jitgraph.tensor.core.basic", "get_vector_length"),
               **names("jitgraph.rewrite.theano_api", "local_optimizer"),
               "multinomial": "jitgraph.sandbox.multinomial",
               **names("jitgraph.rewrite.phases", "optdb"),
               **names("jitgraph.compile.sharedvalue", "shared")}),
    # -- theano.sparse.sandbox ------------------------------------------------------------------
    "jitgraph.sparse.sandbox.truedot": Row(
        "``theano.sparse.sandbox.truedot``: ``true_dot`` (:mod:`jitgraph.sparse.products`).",
        names={**names("jitgraph.sparse.products", "TrueDot true_dot"),
               **names("jitgraph.sparse", "SparseType as_sparse_variable dense_from_sparse "
                       "transpose")}),
    "jitgraph.sparse.sandbox.sp": Row(
        "``theano.sparse.sandbox.sp``: the sparse ops Theano re-exported here (and every other "
        "name of ``theano.sparse``); its experimental convolution by sparse matrices is not "
        "implemented in jitgraph.",
        names=names("jitgraph.sparse", "ColScaleCSC Diag EnsureSortedIndices Remove0 "
                    "RowScaleCSC SpSum SquareDiagonal clean col_scale diag "
                    "ensure_sorted_indices remove0 row_scale sp_sum square_diagonal"),
        unavailable=unavailable("Theano's experimental convolution by sparse matrices is not "
                                "implemented in jitgraph; use jitgraph.tensor.nnet.conv2d",
                                "convolve max_pool ConvolutionIndices convolution_indices"),
        fallback=("jitgraph.sparse",)),
}

#: names Theano's module had that live in a layer above the real jitgraph module of that path
ADDED: dict[str, Row] = {
    "jitgraph.tensor": Row(names={
        **names("jitgraph.scalar", "int32 int32_t=int32"),
        "scal": "jitgraph.scalar",  # own use (Theano's tensor.basic: import theano.scalar as scal)
        **names("jitgraph.scalar.bridge", "TensorFromScalar ScalarFromTensor "
                "tensor_from_scalar scalar_from_tensor"),
        **names("jitgraph.gradient", "Lop Rop consider_constant grad_not_implemented "
                "grad_undefined hessian jacobian numeric_grad DisconnectedType"),
        **names("jitgraph.printing", "pprint min_informative_str"),
        # own use: Theano's tensor/__init__ imported these, and having no __all__, its
        # `from theano.tensor import *` brought them (Theano's test modules rely on it)
        "np": "numpy", "theano": "jitgraph", "compile": "jitgraph.compile",
        "gof": "jitgraph.gof", "sys": "sys", "warnings": "warnings"}),
    "jitgraph.tensor.core.basic": Row(names={
        **names("jitgraph.tensor.core.tolerances", "_allclose=values_allclose "
                "_get_atol_rtol=comparison_tolerances float16_atol float16_rtol float32_atol "
                "float32_rtol float64_atol float64_rtol"),
        **names("jitgraph._facade.objects", " ".join(
            f"_convert_to_{dtype}" for dtype in "bool int8 int16 int32 int64 uint8 uint16 uint32 "
            "uint64 float16 float32 float64 complex64 complex128".split())),
        # Theano's tensor/basic.py defined these (its tests take them from there)
        **names("jitgraph.tensor.linalg.blas", "_dot batched_dot batched_tensordot"),
        **names("jitgraph.tensor.elementwise.reduction", "Argmax Argmin"),
        **names("jitgraph.scalar.bridge", "ScalarFromTensor TensorFromScalar "
                "scalar_from_tensor tensor_from_scalar")},
        # Theano's tensor/basic.py held most of theano.tensor (constructors, neg, exp, ...)
        fallback=("jitgraph.tensor",)),
    "jitgraph.tensor.linalg.nlinalg": Row(names=names(
        "jitgraph.tensor.linalg.nlinalg", "_zero_disconnected=zeros_for_disconnected")),
    "jitgraph.tensor.elementwise.elemwise": Row(names={**names(
        "jitgraph.tensor.elementwise.reduction", "CAReduce Sum Prod All Any"),
        **names("jitgraph.tensor.elementwise.prod_without_zeros", "ProdWithoutZeros")}),
    "jitgraph.tensor.indexing.subtensor": Row(names={
        **names("jitgraph.tensor.indexing.boolean_index",
                "advanced_inc_subtensor advanced_set_subtensor"),
        **names("jitgraph.tensor.indexing.index_helpers", "get_canonical_form_slice")}),
    "jitgraph.compile.mode": Row(names={
        **names("jitgraph.compile.graph_rewriters",
                "AddFeatureOptimizer PrintCurrentFunctionGraph"),
        **names("jitgraph.rewrite.phases", "optdb")}),  # own use (tests query it from here)
    "jitgraph.compile.sharedvalue": Row(names=names("jitgraph.graph.type", "generic")),
    "jitgraph.tensor.extras.extra_ops": Row(names=names("jitgraph.scalar", "int_t=int32")),
    "jitgraph.tensor.core.gradient": Row(names=names(
        "jitgraph.tensor.core.grad_check", "verify_grad GradientError numeric_grad")),
    "jitgraph.tensor.nnet": Row(names={
        **names("jitgraph.tensor.convolution.conv_functions", "abstract_conv2d"),
        **names("jitgraph.scalar", "scalar_sigmoid=sigmoid"),
        **names("jitgraph._facade.objects", "sigmoid_inplace"),
        **names("jitgraph.tensor.rewriting.crossentropy",
                "crossentropy_to_crossentropy_with_softmax "
                "crossentropy_to_crossentropy_with_softmax_with_bias "
                "graph_merge_softmax_with_crossentropy_softmax softmax_simplifier")}),
    "jitgraph.sparse.basic": Row(fallback=("jitgraph.sparse",)),
    "jitgraph.sparse.sandbox.sp2": Row(fallback=("jitgraph.sparse",)),
    "jitgraph.gradient": Row(names={
        **names("jitgraph.compile.debugmode", "DebugMode"),
        **names("jitgraph.compile.mode", "FAST_RUN get_mode")}),
    "jitgraph.ifelse": Row(names={  # own use
        **names("jitgraph.graph.basic", "Apply"), **names("jitgraph.graph.op", "Op"),
        **names("jitgraph.tensor.core.type", "TensorType"),
        **names("jitgraph.graph.replace", "clone"),
        **names("jitgraph.rewrite.phases", "optdb")}),
    "jitgraph.gof": Row(names={
        **names("jitgraph.graph.container", "Container"),
        **names("jitgraph.compile.linker", "Linker LocalLinker=Linker PerformLinker"),
        **names("jitgraph.backend_cpu.theano_linkers", "CLinker OpWiseCLinker DualLinker"),
        **names("jitgraph.rewrite.theano_api", "LocalOptimizer OpRemove OpSub local_optimizer"),
        **names("jitgraph.rewrite.theano_optimizers", "Optimizer SeqOptimizer MergeOptimizer "
                "LocalOptGroup PatternSub NavigatorOptimizer TopoOptimizer "
                "EquilibriumOptimizer OpKeyOptimizer"),
        **names("jitgraph.rewrite.db", "DB=RewriteDatabase EquilibriumDB SequenceDB "
                "LocalGroupDB"),
        **names("jitgraph.rewrite.theano_optimizers", "Query")},
        unavailable=unavailable("jitgraph does not cache constants (Theano shared one Constant "
                                "per value between graphs and refused it in a FunctionGraph "
                                "built with clone=False); any Constant can be in any graph, so "
                                "this error never happens", "CachedConstantError")),
    "jitgraph.printing": Row(names={
        **names("jitgraph.compile.function_call", "Function"),
        **names("jitgraph.compile.sharedvalue", "SharedVariable")}),
    "jitgraph.scalar": Row(names={
        **names("jitgraph.gradient", "grad_not_implemented grad_undefined DisconnectedType"),
        **names("jitgraph.printing", "pprint")}),
}

SUBMODULE_ATTRIBUTES: dict[str, frozenset[str]] = {
    "jitgraph.tensor": frozenset(
        "shared_randomstreams raw_random nnet signal opt inplace sharedvar xlogx nlinalg "
        "slinalg fft utils basic blas blas_c blas_scipy elemwise extra_ops fourier io "
        "subtensor type type_other var".split()),
    "jitgraph.tensor.nnet": frozenset(
        "abstract_conv blocksparse bn conv conv3d2d corr corr3d ctc neighbours nnet opt "
        "sigm".split()),
    "jitgraph.gof": frozenset(
        "toolbox destroyhandler link vm optdb null_type sched callcache compiledir compilelock "
        "params_type cc cmodule".split()),
    "jitgraph.scan_module": frozenset(
        "scan_op scan_utils scan_views scan_checkpoints scan_opt".split()),
    "jitgraph.sandbox": frozenset({"rng_mrg", "multinomial"}),
    "jitgraph.scalar": frozenset({"basic", "basic_scipy", "sharedvar"}),
}

EAGER_CHILDREN: dict[str, tuple[str, ...]] = {"jitgraph.tensor": ("inc_code",)}

__all__ = ["MODULES", "ADDED", "SUBMODULE_ATTRIBUTES", "EAGER_CHILDREN"]
