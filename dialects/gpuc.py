"""The gpuc dialect: one `Dialect` object gathering the ops, types and attrs."""

from __future__ import annotations

from xdsl.ir import Dialect

from gpuc.dialects.attrs import (
    AddressSpaceAttr,
    AtomicKindAttr,
    DimAttr,
    FinalizedAttr,
    FuncPtrType,
    InlineHintAttr,
    JobAttr,
    MemoryOrderAttr,
    PtrType,
    RoleAttr,
    TargetAttr,
)
from gpuc.dialects.deferred import DeferredAddrOp, DeferredCallOp, DeferredLaunchOp
from gpuc.dialects.fence import FenceOp, FenceScopeAttr
from gpuc.dialects.functions import (
    CallIndirectOp,
    CallOp,
    FuncAddrOp,
    FuncOp,
    LaunchOp,
    ReturnOp,
)
from gpuc.dialects.index import (
    BarrierOp,
    BlockDimOp,
    BlockIdOp,
    GlobalIdOp,
    GridDimOp,
    LaneIdOp,
    ThreadIdOp,
)
from gpuc.dialects.memory import (
    AddrSpaceCastOp,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    PrivateAllocOp,
    SharedAllocOp,
    StoreOp,
)
from gpuc.dialects.printf import PrintfOp
from gpuc.dialects.subgroup import (
    BallotOp,
    NumSubgroupsOp,
    ReduceKindAttr,
    ShuffleModeAttr,
    ShuffleOp,
    SubgroupIdOp,
    SubgroupReduceOp,
    SubgroupSizeOp,
    VoteKindAttr,
    VoteOp,
)

GPUC = Dialect(
    "gpuc",
    [
        FuncOp,
        ReturnOp,
        CallOp,
        FuncAddrOp,
        CallIndirectOp,
        LaunchOp,
        DeferredCallOp,
        DeferredAddrOp,
        DeferredLaunchOp,
        LoadOp,
        StoreOp,
        OffsetOp,
        SharedAllocOp,
        PrivateAllocOp,
        AtomicRMWOp,
        AtomicCmpXchgOp,
        AddrSpaceCastOp,
        ThreadIdOp,
        BlockIdOp,
        BlockDimOp,
        GridDimOp,
        GlobalIdOp,
        LaneIdOp,
        BarrierOp,
        ShuffleOp,
        SubgroupReduceOp,
        SubgroupIdOp,
        SubgroupSizeOp,
        NumSubgroupsOp,
        VoteOp,
        BallotOp,
        FenceOp,
        PrintfOp,
    ],
    [
        PtrType,
        FuncPtrType,
        JobAttr,
        AddressSpaceAttr,
        RoleAttr,
        InlineHintAttr,
        DimAttr,
        AtomicKindAttr,
        MemoryOrderAttr,
        TargetAttr,
        FinalizedAttr,
        ShuffleModeAttr,
        ReduceKindAttr,
        VoteKindAttr,
        FenceScopeAttr,
    ],
)
