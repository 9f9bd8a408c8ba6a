// NVIDIA 580.159.04 (H100) segfaults in compute pipeline creation for this shader (2026-11-28):
// task 1 of open_segfault_h100_reduced.py, comment lines and a few statements deleted while it
// still crashed. Immediates: a0 f64 @0, a1 i32 @8, a2 u64 @16 (24 bytes); binding 0: u64 storage.
// Not crashing: without the inner loop, with `s29` a constant false, with `s16` a constant.
// Still crashing: `s29` in the inner loop, compared as i64 or u32, no division at the end.
struct Args { a0: f64, a1: i32, a2: u64 }
var<immediate> args: Args;
@group(0) @binding(0) var<storage, read_write> gtmp_u64: array<u64>;

fn ti_trunc_f64(x: f64) -> f64 {
    return select(floor(x), ceil(x), x < 0.0lf);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let count: u32 = 1u;
    for (var k: u32 = gid.x; k < count; k = k + groups.x * 64u) {
        var s10: i32 = 0i;
        let s14: u64 = select(select(select(((u64(u32(floor(abs(ti_trunc_f64(select(args.a0, 0.0lf, ((bitcast<u64>(args.a0) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) || args.a0 <= -1.0lf || args.a0 >= 1.8446744073709552e+19lf))) * 2.3283064365386963e-10lf))) << 32u) | u64(u32((abs(ti_trunc_f64(select(args.a0, 0.0lf, ((bitcast<u64>(args.a0) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) || args.a0 <= -1.0lf || args.a0 >= 1.8446744073709552e+19lf))) - floor(abs(ti_trunc_f64(select(args.a0, 0.0lf, ((bitcast<u64>(args.a0) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) || args.a0 <= -1.0lf || args.a0 >= 1.8446744073709552e+19lf))) * 2.3283064365386963e-10lf) * 4294967296.0lf)))), 0lu, args.a0 <= -1.0lf), 18446744073709551615lu, args.a0 >= 1.8446744073709552e+19lf), 0lu, ((bitcast<u64>(args.a0) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu));
        let s16: u64 = min(s14, 127lu);
        loop {
            let s18: i32 = s10;
            let s19: bool = (s18 < 4i);
            let s20: bool = (s19 == false);
            if (s20) {
                break;
            }
            let s23: i32 = s10;
            let s24: i32 = (s23 + 1i);
            s10 = s24;
            var s26: i32 = 0i;
            s26 = 0i;
            let s28: u64 = u64(bitcast<i64>(select(0lu, 0xffffffff00000000lu, s24 < 0i) | u64(bitcast<u32>(s24))));
            let s29: bool = (s28 > s16);
            loop {
                let s31: i32 = s26;
                let s32: bool = (s31 < 3i);
                let s33: bool = (s32 == false);
                if (s33) {
                    break;
                }
                let s36: i32 = s26;
                let s37: i32 = (s36 + 1i);
                s26 = s37;
                if (s29) {
                    break;
                }
            }
        }
        let s41: u64 = gtmp_u64[0u];
        let s42: u64 = u64(bitcast<i64>(select(0lu, 0xffffffff00000000lu, args.a1 < 0i) | u64(bitcast<u32>(args.a1))));
        let s44: u64 = min(s42, 63lu);
        let s46: u64 = (s44 & 2lu);
        let s47: u64 = select(s41 / select(s46, 1lu, (s46 == 0lu)), 0lu, (s46 == 0lu));
        gtmp_u64[0u] = s47;
    }
}

