pub mod proto {
    tonic::include_proto!("matchgrid.v1");
    pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("matchgrid_descriptor");
}
