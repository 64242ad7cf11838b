# tests/ref_reduce/torch_diff.py: differential check of the reductions, indexing,
# scatter/gather and sort reference kernels against torch (1.13), through ctypes.
#
#   /usr/bin/python3 torch_diff.py LIBTABI PLUGIN [SEED] [ITERATIONS]
#
# Random inputs (every dtype, 0-d, empty, transposed views, NaN, -0.0, repeated
# indices, negative indices, masks) go through libtabi and through torch; results
# must match (float16/bfloat16 and accumulations with a loose tolerance: the
# reference accumulates in double, torch in the tensor's type). Where torch's
# order is unspecified (topk ties) only the values and self-consistency of the
# indices are compared; sort is compared with torch.sort(stable=True); index_put
# only with accumulate=True (torch leaves duplicate writes unordered). Exits 77
# (skipped) when torch or numpy is missing.
import ctypes as C, sys, random
try:
    import numpy as np, torch
except ImportError as e:
    print('skipped: %s' % e)
    sys.exit(77)
if len(sys.argv) < 3:
    print('usage: torch_diff.py LIBTABI PLUGIN [SEED] [ITERATIONS]')
    sys.exit(2)
lib=C.CDLL(sys.argv[1])
PLUGIN=sys.argv[2]
class Dev(C.Structure): _fields_=[('type',C.c_int32),('id',C.c_int32)]
class DT(C.Structure): _fields_=[('code',C.c_uint8),('bits',C.c_uint8),('lanes',C.c_uint16)]
class DLT(C.Structure): _fields_=[('data',C.c_void_p),('device',Dev),('ndim',C.c_int32),('dtype',DT),('shape',C.POINTER(C.c_int64)),('strides',C.POINTER(C.c_int64)),('byte_offset',C.c_uint64)]
class Tns(C.Structure): _fields_=[('dl',DLT),('keys',C.c_uint64),('struct_size',C.c_uint32),('flags',C.c_uint32)]
class LST(C.Structure): _fields_=[('data',C.c_void_p),('len',C.c_int64)]
class U(C.Union): _fields_=[('i',C.c_int64),('f',C.c_double),('c',C.c_double*2),('t',C.c_void_p),('l',LST)]
class Val(C.Structure): _fields_=[('tag',C.c_int32),('flags',C.c_int32),('u',U)]
lib.tabi_last_error.restype=C.c_char_p
# Pointers must not pass through ctypes as C ints.
VP=C.c_void_p
lib.tabi_runtime_create.argtypes=[VP,C.POINTER(VP)]
lib.tabi_runtime_load_plugin.argtypes=[VP,C.c_char_p,VP]
lib.tabi_tensor_view.argtypes=[VP,VP,C.c_int32,C.POINTER(C.c_int64),C.POINTER(C.c_int64),C.c_int64,C.POINTER(VP)]
lib.tabi_tensor_release.argtypes=[VP]
lib.tabi_tensor_from_host.argtypes=[VP,Dev,C.c_int32,C.c_int32,C.POINTER(C.c_int64),VP,C.c_uint64,C.POINTER(VP)]
lib.tabi_tensor_to_host.argtypes=[VP,VP,VP,C.c_uint64]
lib.tabi_op_find.argtypes=[VP,C.c_char_p,C.POINTER(C.c_int32)]
lib.tabi_call_op.argtypes=[VP,C.c_int32,VP,C.c_int32,VP,C.c_int32]
rt=C.c_void_p()
assert lib.tabi_runtime_create(None,C.byref(rt))==0
assert lib.tabi_runtime_load_plugin(rt,PLUGIN.encode(),None)==0, lib.tabi_last_error()
TD={torch.uint8:0,torch.int8:1,torch.int16:2,torch.int32:3,torch.int64:4,torch.float16:5,torch.float32:6,torch.float64:7,torch.complex64:9,torch.complex128:10,torch.bool:11,torch.bfloat16:15}
RD={v:k for k,v in TD.items()}
keep=[]
def to_tabi(x, noncontig=False):
    x=x.contiguous()
    if noncontig and x.dim()>=2:
        # store the transpose physically, then view it back transposed
        base=x.transpose(0,1).contiguous()
        t=to_tabi(base)
        shape=(C.c_int64*x.dim())(*x.shape)
        st=list(base.stride()); st[0],st[1]=st[1],st[0]
        strides=(C.c_int64*x.dim())(*st)
        out=C.c_void_p()
        assert lib.tabi_tensor_view(rt,t,x.dim(),shape,strides,C.c_int64(0),C.byref(out))==0
        lib.tabi_tensor_release(t)
        return out
    raw = x.view(torch.int16) if x.dtype in (torch.float16,torch.bfloat16) else (x.view(torch.uint8) if x.dtype==torch.bool else x)
    arr=np.ascontiguousarray(raw.numpy()) if raw.numel() else np.zeros(0,dtype=np.uint8)
    shape=(C.c_int64*max(x.dim(),1))(*x.shape)
    out=C.c_void_p()
    dev=Dev(1,0)
    st=lib.tabi_tensor_from_host(rt,dev,TD[x.dtype],x.dim(),shape,arr.ctypes.data_as(C.c_void_p),C.c_uint64(arr.nbytes),C.byref(out))
    assert st==0, lib.tabi_last_error()
    return out
def from_tabi(p):
    t=C.cast(C.c_void_p(p) if isinstance(p,int) else p,C.POINTER(Tns)).contents
    code,bits=t.dl.dtype.code,t.dl.dtype.bits
    m={(1,8):torch.uint8,(0,8):torch.int8,(0,16):torch.int16,(0,32):torch.int32,(0,64):torch.int64,(2,16):torch.float16,(2,32):torch.float32,(2,64):torch.float64,(5,64):torch.complex64,(5,128):torch.complex128,(6,8):torch.bool,(4,16):torch.bfloat16}
    dt=m[(code,bits)]
    shape=[t.dl.shape[i] for i in range(t.dl.ndim)]
    out=torch.empty(shape,dtype=dt)
    nb=out.numel()*out.element_size()
    if nb:
        st=lib.tabi_tensor_to_host(rt,p,out.data_ptr(),nb)
        assert st==0
    return out
def V_t(p): v=Val(); v.tag=5; v.u.t=p; return v
def V_i(i): v=Val(); v.tag=2; v.u.i=i; return v
def V_b(b): v=Val(); v.tag=1; v.u.i=int(b); return v
def V_f(f): v=Val(); v.tag=3; v.u.f=f; return v
def V_n(): v=Val(); v.tag=0; return v
def V_dt(d): v=Val(); v.tag=10; v.u.i=TD[d]; return v
def V_il(l):
    a=(C.c_int64*max(len(l),1))(*l); keep.append(a); v=Val(); v.tag=6; v.u.l.data=C.cast(a,C.c_void_p); v.u.l.len=len(l); return v
def V_tl(ps):
    a=(C.c_void_p*max(len(ps),1))(*ps); keep.append(a); v=Val(); v.tag=9; v.u.l.data=C.cast(a,C.c_void_p); v.u.l.len=len(ps); return v
def V_s(s):
    b=C.create_string_buffer(s.encode()); keep.append(b); v=Val(); v.tag=12; v.u.l.data=C.cast(b,C.c_void_p); v.u.l.len=len(s); return v
def call(name, vals, nouts=1):
    op=C.c_int32()
    assert lib.tabi_op_find(rt,name.encode(),C.byref(op))==0, name
    args=(Val*len(vals))(*vals); outs=(Val*nouts)()
    st=lib.tabi_call_op(rt,op,C.cast(args,VP),len(vals),C.cast(outs,VP),nouts)
    if st!=0: return ('ERR',st,lib.tabi_last_error().decode())
    return [from_tabi(outs[i].u.t) for i in range(nouts)]
def close(a,b,tol):
    if a.shape!=b.shape or a.dtype!=b.dtype: return False
    if a.dtype.is_floating_point or a.is_complex():
        return torch.allclose(a.to(torch.complex128) if a.is_complex() else a.double(), b.to(torch.complex128) if b.is_complex() else b.double(), rtol=tol, atol=tol, equal_nan=True)
    return torch.equal(a,b)
fails=0; total=0
def cmp(label, mine, ref, tol=1e-5):
    global fails,total
    total+=1
    if isinstance(ref,Exception):
        if not (isinstance(mine,tuple) and mine[0]=='ERR'):
            fails+=1; print('FAIL(expected error)',label, str(ref)[:80])
        return
    if isinstance(mine,tuple):
        fails+=1; print('FAIL(error)',label,mine); return
    refs=ref if isinstance(ref,(tuple,list)) else [ref]
    for m,r in zip(mine,refs):
        if not close(m,r,tol):
            fails+=1; print('FAIL',label,'\n mine',m,'\n ref ',r); return
def tref(f):
    try: return f()
    except Exception as e: return e
SEED=int(sys.argv[3]) if len(sys.argv)>3 else 0
ITERS=int(sys.argv[4]) if len(sys.argv)>4 else 150
random.seed(SEED); torch.manual_seed(SEED)
def rnd(shape, dt):
    if dt==torch.bool: return torch.rand(shape)<0.5
    if dt.is_floating_point:
        x=torch.randn(shape)*3
        if x.numel() and random.random()<0.3: x.view(-1)[random.randrange(x.numel())]=float('nan')
        if x.numel() and random.random()<0.3: x.view(-1)[random.randrange(x.numel())]=-0.0
        return x.round().to(dt) if random.random()<0.5 else x.to(dt)
    if dt.is_complex: return torch.randn(shape,dtype=dt)
    return torch.randint(-5 if dt!=torch.uint8 else 0, 6, shape).to(dt)
A=torch.ops.aten
shapes=[(3,),(2,3),(3,4),(2,3,2),(),(0,3),(4,1)]
dts=[torch.float32,torch.float64,torch.int32,torch.int64,torch.uint8,torch.bool,torch.float16,torch.bfloat16,torch.complex64]
for it in range(ITERS):
    sh=random.choice(shapes); dt=random.choice(dts); x=rnd(sh,dt); nc=len(sh)>=2 and random.random()<0.5
    p=to_tabi(x,nc); nd=x.dim()
    dim=random.randint(-max(nd,1),max(nd,1)-1)
    kd=random.random()<0.5
    lab=f'{sh} {dt} nc={nc} dim={dim} kd={kd}'
    cmp('sum '+lab, call('aten::sum.dim_IntList',[V_t(p),V_il([dim]),V_b(kd)]), tref(lambda: A.sum.dim_IntList(x,[dim],kd)), 1e-2 if dt in (torch.float16,torch.bfloat16) else 1e-5)
    if dt not in (torch.float16,torch.bfloat16):
        cmp('prod '+lab, call('aten::prod.dim_int',[V_t(p),V_i(dim),V_b(kd)]), tref(lambda: A.prod.dim_int(x,dim,kd)), 1e-4)
    if dt.is_floating_point or dt.is_complex:
        cmp('mean '+lab, call('aten::mean.dim',[V_t(p),V_il([dim]),V_b(kd)]), tref(lambda: A.mean.dim(x,[dim],kd)), 1e-2)
        cmp('var '+lab, call('aten::var.correction',[V_t(p),V_il([dim]),V_i(1),V_b(kd)]), tref(lambda: A.var.correction(x,[dim],correction=1,keepdim=kd)), 1e-2)
    if not dt.is_complex:
        cmp('amax '+lab, call('aten::amax',[V_t(p),V_il([dim]),V_b(kd)]), tref(lambda: A.amax(x,[dim],kd)))
        cmp('max.dim '+lab, call('aten::max.dim',[V_t(p),V_i(dim),V_b(kd)],2), tref(lambda: A.max.dim(x,dim,kd)))
        cmp('min.dim '+lab, call('aten::min.dim',[V_t(p),V_i(dim),V_b(kd)],2), tref(lambda: A.min.dim(x,dim,kd)))
        cmp('sort '+lab, call('aten::sort',[V_t(p),V_i(dim),V_b(kd)],2), tref(lambda: A.sort(x,dim,kd) if x.numel()==0 else torch.sort(x,dim=dim,descending=kd,stable=True)))
    if dt!=torch.bool and not dt.is_complex:
        cmp('argmax '+lab, call('aten::argmax',[V_t(p),V_i(dim),V_b(kd)]), tref(lambda: A.argmax(x,dim,kd)))
        cmp('argmin '+lab, call('aten::argmin',[V_t(p),V_n(),V_b(kd)]), tref(lambda: A.argmin(x,None,kd)))
    if dt!=torch.float16:
        cmp('cumsum '+lab, call('aten::cumsum',[V_t(p),V_i(dim)]), tref(lambda: A.cumsum(x,dim)), 1e-2)
    cmp('any '+lab, call('aten::any.dim',[V_t(p),V_i(dim),V_b(kd)]), tref(lambda: A.any.dim(x,dim,kd)) if not dt.is_complex else (x!=0).any(dim,kd))
    cmp('nonzero '+lab, call('aten::nonzero',[V_t(p)]), tref(lambda: A.nonzero(x)))
    # gather / scatter along dim
    if nd>=1 and x.numel():
        d=dim%nd
        ish=list(x.shape); ish[d]=random.randint(1,4)
        for j in range(nd):
            if j!=d: ish[j]=random.randint(1,x.shape[j])
        idx=torch.randint(0,x.shape[d],ish)
        pi=to_tabi(idx)
        cmp('gather '+lab, call('aten::gather',[V_t(p),V_i(dim),V_t(pi)]), tref(lambda: A.gather(x,dim,idx)))
        src=rnd(ish,dt); ps=to_tabi(src)
        cmp('scatter_add '+lab, call('aten::scatter_add',[V_t(p),V_i(dim),V_t(pi),V_t(ps)]), tref(lambda: A.scatter_add(x,dim,idx,src)),1e-2)
        for red in ['sum','prod','mean','amax','amin']:
            inc=random.random()<0.5
            cmp(f'scatter_reduce {red} inc={inc} '+lab, call('aten::scatter_reduce.two',[V_t(p),V_i(dim),V_t(pi),V_t(ps),V_s(red),V_b(inc)]), tref(lambda: A.scatter_reduce.two(x,dim,idx,src,red,include_self=inc)),1e-2)
        sel=torch.randint(0,x.shape[d],(random.randint(0,4),)); psel=to_tabi(sel)
        cmp('index_select '+lab, call('aten::index_select',[V_t(p),V_i(dim),V_t(psel)]), tref(lambda: A.index_select(x,dim,sel)))
        # advanced indexing with random None pattern
        ind=[]; tind=[]
        for j in range(nd):
            if random.random()<0.5: ind.append(None); tind.append(None)
            else:
                it_=torch.randint(-x.shape[j],x.shape[j],random.choice([(2,),(1,),(2,1),()]))
                tind.append(it_); ind.append(to_tabi(it_))
        if any(t is not None for t in tind):
            cmp('index '+lab+str([None if t is None else tuple(t.shape) for t in tind]), call('aten::index.Tensor',[V_t(p),V_tl(ind)]), tref(lambda: A.index.Tensor(x,tind)))
            res=tref(lambda: A.index.Tensor(x,tind))
            if not isinstance(res,Exception):
                vals=rnd(res.shape,dt); pv=to_tabi(vals)
                acc=random.random()<0.5
                # torch index_put with duplicates and accumulate=False is unspecified; only compare accumulate or when unique
                cmp('index_put acc='+str(acc)+' '+lab, call('aten::index_put',[V_t(p),V_tl(ind),V_t(pv),V_b(True)]), tref(lambda: A.index_put(x,tind,vals,True)),1e-2)
        mask=torch.rand(x.shape)<0.5; pm=to_tabi(mask); srcm=rnd((x.numel(),),dt); psm=to_tabi(srcm)
        cmp('masked_scatter '+lab, call('aten::masked_scatter',[V_t(p),V_t(pm),V_t(psm)]), tref(lambda: A.masked_scatter(x,mask,srcm)))
        k=random.randint(0,x.shape[d])
        if dt not in (torch.bool,torch.float16) and not dt.is_complex:
            r=call('aten::topk',[V_t(p),V_i(k),V_i(dim),V_b(kd)],2)
            ref=tref(lambda: A.topk(x,k,dim,kd))
            # compare values only (ties unspecified), and that our indices select our values
            if isinstance(r,tuple): cmp('topk '+lab, r, ref)
            else:
                cmp('topk values '+lab,[r[0]],[ref[0]])
                cmp('topk idx consistent '+lab,[torch.gather(x,dim,r[1])],[r[0]])

# --- several dims, dtype= arguments, corrections, prims, masks ---
A=torch.ops.aten; P=torch.ops.prims
def rnd2(shape, dt):
    if dt==torch.bool: return torch.rand(shape)<0.5
    if dt.is_floating_point:
        x=torch.randn(shape)*3
        return x.to(dt)
    if dt.is_complex: return torch.randn(shape,dtype=dt)
    return torch.randint(-100 if dt!=torch.uint8 else 0, 100, shape).to(dt)
dts=[torch.float32,torch.float64,torch.int8,torch.int32,torch.int64,torch.uint8,torch.bool,torch.float16,torch.bfloat16,torch.complex64,torch.complex128]
for it in range(ITERS):
    sh=random.choice([(2,3,4),(3,1,2),(2,0,3),(5,)]); dt=random.choice(dts); x=rnd2(sh,dt); p=to_tabi(x, random.random()<0.5)
    nd=x.dim(); dims=random.sample(range(nd), random.randint(0,nd)); dims=[d-nd if random.random()<0.5 else d for d in dims]
    kd=random.random()<0.5; odt=random.choice([None,torch.float64,torch.int64,torch.int16,torch.float16,torch.complex64])
    lab=f'{sh} {dt} dims={dims} kd={kd} dtype={odt}'
    dv=V_n() if odt is None else V_dt(odt)
    cmp('sum '+lab, call('aten::sum.dim_IntList',[V_t(p),V_il(dims),V_b(kd),dv]), tref(lambda: A.sum.dim_IntList(x,dims,kd,dtype=odt)),1e-2)
    cmp('mean '+lab, call('aten::mean.dim',[V_t(p),V_il(dims),V_b(kd),dv]), tref(lambda: A.mean.dim(x,dims,kd,dtype=odt)),1e-2)
    if nd and dims and not dt.is_complex:
        cmp('amax '+lab, call('aten::amax',[V_t(p),V_il(dims),V_b(kd)]), tref(lambda: A.amax(x,dims,kd)))
        cmp('any.dims '+lab, call('aten::any.dims',[V_t(p),V_il(dims),V_b(kd)]), (x!=0).sum(dims,keepdim=kd).bool() if dt!=torch.uint8 else (x!=0).sum(dims,keepdim=kd).bool().to(torch.uint8))
    corr=random.randint(-1,3)
    if dt.is_floating_point or dt.is_complex:
        cmp('var '+lab+f' corr={corr}', call('aten::var.correction',[V_t(p),V_il(dims),V_i(corr),V_b(kd)]), tref(lambda: A.var.correction(x,dims,correction=corr,keepdim=kd)),1e-2)
        cmp('prims.var '+lab, call('prims::var',[V_t(p),V_il(dims) if dims else V_n(),V_i(corr)]), tref(lambda: A.var.correction(x,dims if dims else None,correction=corr)),1e-2)
    if nd and random.random()<0.7:
        d=random.randrange(nd)
        cmp('cumsum '+lab, call('aten::cumsum',[V_t(p),V_i(d),dv]), tref(lambda: A.cumsum(x,d,dtype=odt)) if odt!=torch.float16 and not (odt is None and dt==torch.float16) else A.cumsum(x.double() if not x.is_complex() else x,d).to(odt or dt) if not (x.is_complex() and odt is not None and not odt.is_complex) else A.cumsum(x.real.double(),d).to(odt), 1e-2)
    if nd:
        cmp('prims.sum '+lab, call('prims::sum',[V_t(p),V_il(dims) if dims else V_n(),dv]), tref(lambda: (A.sum.dim_IntList(x.to(odt) if odt else x,dims if dims else None)).to(odt or dt)),1e-2)
    # masks in index
    if nd>=2:
        m=torch.rand(sh[:2])<0.5; pm=to_tabi(m)
        cmp('index mask '+lab, call('aten::index.Tensor',[V_t(p),V_tl([pm])]), tref(lambda: A.index.Tensor(x,[m])))
        m1=torch.rand(sh[1])<0.5; pm1=to_tabi(m1)
        cmp('index mask2 '+lab, call('aten::index.Tensor',[V_t(p),V_tl([None,pm1])]), tref(lambda: A.index.Tensor(x,[None,m1])))
print(f'{total-fails} passed, {fails} failed')
sys.exit(1 if fails else 0)
