//! Checks that the bindings link against the installed QPL and work, or that
//! the crate reports QPL as absent when it was built without it.

#[cfg(not(qpl_absent))]
mod found {
    use core::ffi::CStr;

    use qpl_sys::*;

    /// Size in bytes of a software-path job, as QPL reports it.
    fn software_job_size() -> u32 {
        let mut size: u32 = 0;
        // SAFETY: `size` is a valid, writable `u32` for the whole call.
        let status = unsafe { qpl_get_job_size(qpl_path_t::qpl_path_software, &mut size) };
        assert_eq!(status, qpl_status::QPL_STS_OK);
        size
    }

    #[test]
    fn flag_found_is_true() {
        const { assert!(QPL_FOUND) };
    }

    #[test]
    fn job_size_of_software_path() {
        let size = software_job_size();
        assert!(size > 0);
        // QPL's private state follows the public struct.
        assert!(size as usize >= core::mem::size_of::<qpl_job>());
    }

    #[test]
    fn library_version_is_1_x() {
        // SAFETY: takes no arguments; returns a pointer to a static string.
        let ptr = unsafe { qpl_get_library_version() };
        assert!(!ptr.is_null());
        // SAFETY: non-null, and QPL returns a NUL-terminated static string.
        let version = unsafe { CStr::from_ptr(ptr) }.to_str().unwrap();
        assert!(version.starts_with("1."), "version {version:?}");
        if let Some(built_against) = QPL_VERSION {
            assert_eq!(version, built_against);
        }
    }

    #[test]
    fn flags_are_u32_bits() {
        let flags: u32 = QPL_FLAG_FIRST | QPL_FLAG_LAST;
        assert_eq!(flags, 0b11);
        assert_eq!(QPL_FLAG_OMIT_AGGREGATES, 0x0020_0000);
        let numa: i32 = QPL_DEVICE_NUMA_ID_SOCKET;
        assert_eq!(numa, -1);
    }

    /// Runs a real software-path scan, which also proves that the C++ runtime
    /// a static `libqpl.a` needs is linked.
    #[test]
    fn scan_eq_on_software_path() {
        let input: [u8; 10] = [5, 1, 5, 5, 0, 9, 5, 2, 5, 5];
        let mut output = [0u8; 2];
        // u64 storage gives the job the 8-byte alignment `qpl_job` needs.
        let words = (software_job_size() as usize).div_ceil(8);
        let mut storage = vec![0u64; words];
        let job = storage.as_mut_ptr().cast::<qpl_job>();

        // SAFETY: `job` points to `qpl_get_job_size` zeroed, suitably aligned
        // bytes that outlive every use of it below.
        let status = unsafe { qpl_init_job(qpl_path_t::qpl_path_software, job) };
        assert_eq!(status, qpl_status::QPL_STS_OK);

        // SAFETY: `job` was initialised above; the input and output pointers
        // stay valid for the sizes given until `qpl_fini_job`.
        let (status, total_out, sum) = unsafe {
            (*job).op = qpl_operation::qpl_op_scan_eq;
            (*job).next_in_ptr = input.as_ptr().cast_mut();
            (*job).available_in = input.len() as u32;
            (*job).next_out_ptr = output.as_mut_ptr();
            (*job).available_out = output.len() as u32;
            (*job).flags = QPL_FLAG_FIRST | QPL_FLAG_LAST;
            (*job).parser = qpl_parser::qpl_p_le_packed_array;
            (*job).src1_bit_width = 8;
            (*job).num_input_elements = input.len() as u32;
            (*job).param_low = 5;
            (*job).out_bit_width = qpl_out_format::qpl_ow_nom;
            let status = qpl_execute_job(job);
            (status, (*job).total_out, (*job).sum_value)
        };
        assert_eq!(status, qpl_status::QPL_STS_OK);
        assert_eq!(total_out, 2);
        // Bit i (LSB first) is set where input[i] == 5.
        assert_eq!(output, [0b0100_1101, 0b0000_0011]);
        assert_eq!(sum, 6);

        // SAFETY: `job` was initialised by `qpl_init_job` and is not used after.
        let status = unsafe { qpl_fini_job(job) };
        assert_eq!(status, qpl_status::QPL_STS_OK);
    }
}

#[cfg(qpl_absent)]
#[test]
fn flag_found_is_false_without_qpl() {
    const { assert!(!qpl_sys::QPL_FOUND) };
    assert_eq!(qpl_sys::QPL_VERSION, None);
}
