#!/usr/bin/env python3
"""Makes small wheels of Intel's SYCL runtime and dpnp from the PyPI ones, for test/sycl/sycl-check.sh: only the files
the check needs, recompressed with LZMA (zip method 14, which pip reads through Python's zipfile). About 280 MB of
PyPI wheels become about 22 MB, which fits tools/gpu-pack.sh's pack.

The oneAPI runtime wheels (intel-sycl-rt, intel-cmplr-lib-ur, intel-cmplr-lib-rt, umf, tcmlib) put their shared
libraries in the wheel's data scheme (NAME.data/data/lib/), which `pip install --target` silently drops; here each
kept library goes, under its soname, to the purelib folder oneapi_rt_lib/ instead, so --target keeps it (the
check puts that folder on LD_LIBRARY_PATH). dpnp keeps dpnp/tensor/ and its tests, dpnp/tests/tensor/, and leaves
out dpnp/__init__.py and dpnp/tests/__init__.py, so that dpnp and dpnp.tests are namespace packages: `import
dpnp.tensor` then runs without dpnp's oneMKL-backed modules, which are not installed. dpctl is copied as it is.
Each trimmed wheel's version gets the local label +min, and its RECORD is rewritten.

usage: repack.py SRC_WHEEL_DIR OUT_DIR
"""
import base64, hashlib, os, re, shutil, sys, zipfile

LIB = "oneapi_rt_lib/"
# wheel name prefix -> {member in the source wheel (regex): destination path, or None to keep the same path}
PLANS = {
    "intel_sycl_rt-": {r".*\.data/data/lib/libsycl\.so\.9\.0\.0$": LIB + "libsycl.so.9"},
    "intel_cmplr_lib_ur-": {
        r".*\.data/data/lib/libur_loader\.so\.0\.\d+\.\d+$": LIB + "libur_loader.so.0",
        r".*\.data/data/lib/libur_adapter_level_zero\.so\.0\.\d+\.\d+$": LIB + "libur_adapter_level_zero.so.0",
        r".*\.data/data/lib/libur_adapter_level_zero_v2\.so\.0\.\d+\.\d+$": LIB + "libur_adapter_level_zero_v2.so.0",
    },
    # libsvml, libimf and libirng are NEEDED by the UR loader and adapters (icx links them in) though no symbol
    # of theirs is used; they must be there for the loader to load.
    "intel_cmplr_lib_rt-": {
        r".*\.data/data/lib/libintlc\.so\.5$": LIB + "libintlc.so.5",
        r".*\.data/data/lib/libsvml\.so$": LIB + "libsvml.so",
        r".*\.data/data/lib/libimf\.so$": LIB + "libimf.so",
        r".*\.data/data/lib/libirng\.so$": LIB + "libirng.so",
    },
    "umf-": {r".*\.data/data/lib/libumf\.so\.1\.\d+\.\d+$": LIB + "libumf.so.1",
             r".*\.data/data/share/doc/umf/(LICENSE\.TXT|licensing/.*)$": "licenses"},
    "tcmlib-": {r".*\.data/data/lib/libhwloc\.so\.15\.\d+\.\d+$": LIB + "libhwloc.so.15",
                r".*\.data/data/share/doc/tcm/licensing/.*$": "licenses"},
    "dpnp-": {r"^dpnp/tensor/.*$": None, r"^dpnp/tests/tensor/.*$": None},
}


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def repack(src, out_dir, plan):
    base = os.path.basename(src)
    m = re.match(r"^([^-]+)-([^-]+)-(.*)\.whl$", base)
    name, ver, tags = m.group(1), m.group(2), m.group(3)
    newver = ver + "+min"
    old_di, new_di = f"{name}-{ver}.dist-info/", f"{name}-{newver}.dist-info/"
    out = os.path.join(out_dir, f"{name}-{newver}-{tags}.whl")
    records, top = [], set()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_LZMA) as zout:
        def put(path, data):
            zi = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if ".so" in path else 0o644) << 16
            zout.writestr(zi, data, zipfile.ZIP_LZMA)
            records.append(record_line(path, data))
        for info in zin.infolist():
            if info.is_dir():
                continue
            for pat, dst in plan.items():
                if re.match(pat, info.filename):
                    data = zin.read(info)
                    if dst == "licenses":
                        dst = new_di + "licenses/" + info.filename.split("/data/share/doc/", 1)[1]
                    elif dst is None:
                        dst = info.filename
                    put(dst, data)
                    if not dst.startswith(new_di):
                        top.add(dst.split("/", 1)[0])
                    break
        for info in zin.infolist():
            if not info.filename.startswith(old_di) or info.is_dir():
                continue
            rel = info.filename[len(old_di):]
            if rel in ("RECORD", "top_level.txt"):
                continue
            data = zin.read(info)
            if rel == "METADATA":
                text = data.decode()
                text = re.sub(r"^Version: .*$", f"Version: {newver}", text, count=1, flags=re.M)
                text = text.replace("\n\n", "\n\nThis is a trimmed repack (" + os.path.basename(src) +
                                    ") made for krt's SYCL check (test/sycl/repack.py).\n\n", 1)
                data = text.encode()
            put(new_di + rel, data)
        put(new_di + "top_level.txt", ("\n".join(sorted(top)) + "\n").encode())
        records.append(new_di + "RECORD,,")
        zout.writestr(zipfile.ZipInfo(new_di + "RECORD", date_time=(2026, 1, 1, 0, 0, 0)),
                      "\n".join(records) + "\n", zipfile.ZIP_LZMA)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    src_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    for f in sorted(os.listdir(src_dir)):
        if f.startswith("dpctl-") and f.endswith(".whl"):
            shutil.copy(os.path.join(src_dir, f), out_dir)
            print(f"{f}: copied as it is")
        for prefix, plan in PLANS.items():
            if f.startswith(prefix) and f.endswith(".whl"):
                out = repack(os.path.join(src_dir, f), out_dir, plan)
                print(f"{f} ({os.path.getsize(os.path.join(src_dir, f))} B) -> {os.path.basename(out)} "
                      f"({os.path.getsize(out)} B)")


if __name__ == "__main__":
    main()
